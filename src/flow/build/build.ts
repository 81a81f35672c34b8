/**
 * Stage 2, build: a read flow file → the typed flow AST, checking the shape of every key (names, kinds,
 * value types) but nothing that needs the roster or other nodes; that is the checker's.
 *
 *   input:  FlowFile of "name: x / nodes: [{ id: scout, agent: scout, reads: [input] }]"
 *   output: Flow { name: x, nodes: [AgentNode scout reads input] }
 *   faults: missing-key, unknown-key, key-type, name-mismatch, node-kind, invalid-id, reserved-id, invalid-address
 */
import type { Node, Pair } from "yaml";
import { didYouMean, type Fault, fault, nearest } from "../../faults/index.ts";
import type { Range } from "../../text/index.ts";
import type { Address, AgentNode, Flow, FlowNode, Located } from "../ast.ts";
import type { FlowFile } from "../read/index.ts";
import { ADDRESS_WORDS, FLOW_KEYS, ID_PATTERN, KIND_KEYS, NODE_KEYS, RESERVED_WORDS } from "./words.ts";
import { describe, itemsOf, keyOf, pairsOf, rangeOf, stringOf } from "./yaml-nodes.ts";

/** Builds the flow AST; `expectedName` is the file name without `.md` (undefined skips the name rule). */
export function buildFlow(file: FlowFile, expectedName?: string): BuildResult {
	const faults: Fault[] = [];
	const report = (code: Fault["code"], range: Range, path: string, message: string, details = {}) =>
		faults.push(fault(code, file.file, range, path, message, details));
	const top = pairsOf(file.yaml.contents);
	if (!top) {
		report("not-a-flow", file.frontmatterRange, "", `the frontmatter is ${describe(file.yaml.contents)}, not a mapping of flow keys`);
		return { faults };
	}
	const keys = new Map<string, Pair>();
	for (const pair of top) {
		const { key, range } = keyOf(file, pair);
		if (!(FLOW_KEYS as readonly string[]).includes(key)) {
			const near = nearest(key, FLOW_KEYS);
			report("unknown-key", range, key, `a flow has no key \`${key}\`.${didYouMean(near)}`, { expected: near ? [near] : [] });
			continue;
		}
		keys.set(key, pair);
	}
	const at = file.table.range(file.yamlBase, file.yamlBase);
	const str = (key: string): Located<string> | undefined => {
		const pair = keys.get(key);
		if (!pair) return undefined;
		const value = stringOf(pair.value);
		const range = rangeOf(file, pair.value as Node, keyOf(file, pair).range);
		if (value === undefined) {
			report("key-type", range, key, `\`${key}\` must be a non-empty string, not ${describe(pair.value)}`);
			return undefined;
		}
		return { value: value.trim(), range };
	};
	const required = (key: string) => {
		if (!keys.has(key)) report("missing-key", at, key, `a flow needs \`${key}:\``);
	};
	for (const key of ["name", "description", "input", "nodes"]) required(key);
	const name = str("name");
	if (name && expectedName !== undefined && name.value !== expectedName) {
		report("name-mismatch", name.range, "name", `\`name: ${name.value}\` differs from the file name \`${expectedName}\``, {
			hint: "A flow is found by its file name, so the two must agree.",
		});
	}
	const description = str("description");
	const model = str("model");
	const input = readInput(file, keys.get("input"), report);
	const refused = new Set<string>();
	const nodes = readNodes(file, keys.get("nodes"), report, refused);
	// The flow is returned even with faults, holding the nodes that did build, so the checker can still
	// report every other mistake at once; `refused` lets it skip what refers to a refused node (no cascade).
	return {
		value: {
			file: file.file,
			name: name ?? { value: expectedName ?? "", range: at },
			description: description ?? { value: "", range: at },
			input: input ?? { value: { type: "string" }, range: at },
			...(model ? { model } : {}),
			nodes,
			sections: file.sections,
			...(file.preamble ? { preamble: file.preamble } : {}),
			source: file,
		},
		faults,
		refused,
		complete: faults.length === 0,
	};
}

/** What the builder gives back: the flow as far as it built, and the ids of nodes it refused. */
export interface BuildResult {
	value?: Flow;
	faults: Fault[];
	/** Ids of nodes refused here; reads of them are not reported again. */
	refused?: ReadonlySet<string>;
	/** True when nothing was refused. */
	complete?: boolean;
}

type Report = (code: Fault["code"], range: Range, path: string, message: string, details?: object) => void;

function readInput(file: FlowFile, pair: Pair | undefined, report: Report): Flow["input"] | undefined {
	if (!pair) return undefined;
	const range = rangeOf(file, pair.value as Node, keyOf(file, pair).range);
	if (stringOf(pair.value) === "string") return { value: { type: "string" }, range };
	report("key-type", range, "input", `\`input\` must be \`string\`, not ${describe(pair.value)}`, {
		hint: "Typed inputs arrive with the type notation of the language issue; write `input: string` for now.",
	});
	return undefined;
}

function readNodes(file: FlowFile, pair: Pair | undefined, report: Report, refused: Set<string>): FlowNode[] {
	if (!pair) return [];
	const items = itemsOf(pair.value);
	const range = rangeOf(file, pair.value as Node, keyOf(file, pair).range);
	if (!items || items.length === 0) {
		report("key-type", range, "nodes", `\`nodes\` must be a non-empty list of nodes, not ${describe(pair.value)}`);
		return [];
	}
	const nodes: FlowNode[] = [];
	for (const item of items) {
		const node = readNode(file, item, range, report);
		if (node) nodes.push(node);
		else {
			const id = stringOf(pairsOf(item)?.find((p) => keyOf(file, p).key === "id")?.value);
			if (id) refused.add(id);
		}
	}
	return nodes;
}

function readNode(file: FlowFile, item: unknown, listRange: Range, report: Report): FlowNode | undefined {
	const range = rangeOf(file, item as Node, listRange);
	const pairs = pairsOf(item);
	if (!pairs) {
		report("key-type", range, "nodes", `a node is a mapping with \`id\` and a kind key, not ${describe(item)}`);
		return undefined;
	}
	const byKey = new Map<string, Pair>();
	for (const pair of pairs) byKey.set(keyOf(file, pair).key, pair);
	const idPair = byKey.get("id");
	const idText = idPair ? stringOf(idPair.value) : undefined;
	const idRange = idPair ? rangeOf(file, idPair.value as Node, range) : range;
	const path = idText ?? "?";
	let ok = true;
	if (!idPair) {
		report("missing-key", range, "", "a node needs `id:`");
		ok = false;
	} else if (idText === undefined) {
		report("key-type", idRange, path, `\`id\` must be a name, not ${describe(idPair.value)}`);
		ok = false;
	} else if (!ID_PATTERN.test(idText)) {
		const suggestion = idText.replace(/[^A-Za-z0-9_]/g, "_").replace(/^(?=[0-9])/, "_");
		report("invalid-id", idRange, path, `the id \`${idText}\` is not a name a condition can read; try \`${suggestion}\``, {
			expected: [suggestion],
		});
		ok = false;
	} else if (ADDRESS_WORDS.includes(idText) || RESERVED_WORDS.includes(idText)) {
		report("reserved-id", idRange, path, `\`${idText}\` is a reserved word and cannot be an id`);
		ok = false;
	}
	const kinds = [...byKey.keys()].filter((k) => (KIND_KEYS as readonly string[]).includes(k));
	if (kinds.length !== 1) {
		const message =
			kinds.length === 0
				? `the node has no kind key; give it one of \`${KIND_KEYS.join("`, `")}\``
				: `the node has ${kinds.length} kind keys (\`${kinds.join("`, `")}\`); a node is exactly one kind`;
		report("node-kind", idPair ? idRange : range, path, message);
		return undefined;
	}
	const kind = kinds[0];
	if (kind !== "agent") {
		report("node-kind", keyOf(file, byKey.get(kind) as Pair).range, `${path}.${kind}`, `\`${kind}\` nodes are not supported by this version of pi-flows`);
		return undefined;
	}
	// Unknown keys and bad reads are reported but do not refuse the node: it still builds, so later
	// nodes that read it and its section are judged as usual (one mistake, one fault).
	const allowed = new Set<string>(["id", "agent", ...NODE_KEYS.agent]);
	for (const [key, pair] of byKey) {
		if (allowed.has(key)) continue;
		const near = nearest(key, allowed);
		report("unknown-key", keyOf(file, pair).range, `${path}.${key}`, `an agent node has no key \`${key}\`.${didYouMean(near)}`, {
			expected: near ? [near] : [],
		});
	}
	const agentPair = byKey.get("agent") as Pair;
	const agentName = stringOf(agentPair.value);
	const agentRange = rangeOf(file, agentPair.value as Node, keyOf(file, agentPair).range);
	if (agentName === undefined) {
		report("key-type", agentRange, `${path}.agent`, `\`agent\` must be an agent's name, not ${describe(agentPair.value)}`);
		ok = false;
	}
	const reads = idText !== undefined ? readReads(file, byKey.get("reads"), path, report) : [];
	const modelPair = byKey.get("model");
	let model: Located<string> | undefined;
	if (modelPair) {
		const value = stringOf(modelPair.value);
		const r = rangeOf(file, modelPair.value as Node, keyOf(file, modelPair).range);
		if (value === undefined) {
			report("key-type", r, `${path}.model`, `\`model\` must be a model like \`provider/id\`, not ${describe(modelPair.value)}`);
			ok = false;
		} else model = { value: value.trim(), range: r };
	}
	if (!ok || agentName === undefined || idText === undefined) return undefined;
	const node: AgentNode = {
		kind: "agent",
		id: { value: idText, range: idRange },
		path: idText,
		agent: { value: agentName.trim(), range: agentRange },
		reads,
		...(model ? { model } : {}),
		range,
	};
	return node;
}

const ADDRESS = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;

function readReads(file: FlowFile, pair: Pair | undefined, path: string, report: Report): Address[] {
	if (!pair) return [];
	const items = itemsOf(pair.value);
	const listRange = rangeOf(file, pair.value as Node, keyOf(file, pair).range);
	if (!items) {
		report("key-type", listRange, `${path}.reads`, `\`reads\` must be a list of addresses like \`[input, plan]\`, not ${describe(pair.value)}`);
		return [];
	}
	const reads: Address[] = [];
	for (const item of items) {
		const text = stringOf(item);
		const range = rangeOf(file, item as Node, listRange);
		if (text === undefined) {
			report("key-type", range, `${path}.reads`, `a read is an address like \`plan.output\`, not ${describe(item)}`);
			continue;
		}
		const trimmed = text.trim();
		if (!ADDRESS.test(trimmed)) {
			report("invalid-address", range, `${path}.reads`, `\`${trimmed}\` is not an address: a name followed by \`.field\`s`);
			continue;
		}
		const [root, ...fields] = trimmed.split(".");
		reads.push({ root, fields, text: trimmed, range });
	}
	return reads;
}
