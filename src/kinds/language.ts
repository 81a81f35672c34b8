/**
 * The registry of node kinds: one module per kind of the `FlowNode` union, in a table whose type names
 * every kind, so a kind added to the AST without its module is a compile error here. The builder's key
 * tables, the JSON Schema, the checker's dispatch, bounds, the plan, Mermaid and the report's graph all
 * read a kind through this table; nothing else lists the kinds. The run half is `kinds/run.ts`.
 *
 * Kind modules are imported here and nowhere else. A kind calls back into the language's stages (a block
 * reads and checks its body), so no file of `src/language/` imports this table: whoever composes the stages
 * hands `LANGUAGE` in (src/load to the builder and the checker, the language server to the builder, the
 * CLI to `frontmatterSchema`), and the renderers read it off the checked flow (`CheckedFlow.kinds`). So no
 * circle of imports, between files or between folders, runs through the kinds
 * (test/layers/import-cycles.test.ts, folder-cycles.test.ts). This door loads neither the engine nor pi:
 * the language server and `pi-flows check` import it.
 */
import type { FlowNode } from "../language/ast.ts";
import { agentKind } from "./agent/language.ts";
import { askKind } from "./ask/language.ts";
import { checkKind } from "./check/language.ts";
import { choiceKind } from "./choice/language.ts";
import { commitKind } from "./commit/language.ts";
import { flowKind } from "./flow/language.ts";
import { type KindTable, type LanguageKinds, languageKinds } from "../language/kind.ts";
import { loopKind } from "./loop/language.ts";
import { mapKind } from "./map/language.ts";
import { parallelKind } from "./parallel/language.ts";
import { swarmKind } from "./swarm/language.ts";
import { waitKind } from "./wait/language.ts";

export type {
	Body,
	BoundKit,
	GraphKit,
	KindKey,
	KindModule,
	KindTable,
	LanguageKinds,
	MermaidKit,
} from "../language/kind.ts";
export { address, type JsonSchemaDoc, KEY, ref, text, whole } from "../language/keys.ts";

/**
 * Every kind, in the order the language lists them (the order of kind keys in faults and completion, and
 * which kind a shared key is said to belong to).
 */
export const KINDS = {
	agent: agentKind,
	choice: choiceKind,
	parallel: parallelKind,
	map: mapKind,
	loop: loopKind,
	check: checkKind,
	commit: commitKind,
	ask: askKind,
	flow: flowKind,
	swarm: swarmKind,
	wait: waitKind,
} satisfies KindTable;

/** The table with its derived lists, as the stages receive it. */
export const LANGUAGE: LanguageKinds = languageKinds(KINDS);

/** The kinds as the `kind` field spells them, in the registry's order. */
export const NODE_KINDS = LANGUAGE.names;

/** A node's kind module, typed with the node's own type. */
export const kindOf = LANGUAGE.of;

/** A kind's module by its name. */
export const kindNamed = LANGUAGE.named;

/** A kind key of any kind (`agent`, `agent-from`, `choice`, ...), as a type. */
export type KindKeyName = {
	[K in keyof typeof KINDS]: (typeof KINDS)[K]["kindKeys"][number]["key"];
}[keyof typeof KINDS];

/** Kind keys: a node is `id` plus exactly one of these (twins count as one kind). */
export const KIND_KEYS = LANGUAGE.kindKeys as readonly KindKeyName[];

/** The kind a kind key makes. */
export const KIND_OF = LANGUAGE.kindOfKey;

/** Keys each kind takes besides `id`, its kind key and `on-fail`. */
export const NODE_KEYS = LANGUAGE.nodeKeys;

/** Which kind a key belongs to, for "it belongs to loop nodes" in unknown-key faults (the first kind wins). */
export const KEY_OWNER = LANGUAGE.keyOwner;

/** Whether a node has a `## <id>` section: agent turns and swarms (whose section is the goal). */
export function hasSection(node: FlowNode): boolean {
	return kindOf(node).section;
}
