/**
 * The scripted model's script: what each turn does, keyed by node id or exact visit path, read from YAML
 * with positions so a malformed script is refused, with its line and column, before the first turn.
 *
 *   turns:
 *     scout:                       # every visit of node `scout` plays these requests in order
 *       - call: read               # a tool call; pi really executes it
 *         args: { path: README.md }
 *       - say: "Read it: {{result|lines:3}}"
 *     "deliver#2/code":            # an exact visit path wins over the node id
 *       - fail: rate limited       # a provider error
 */
import { isMap, isScalar, isSeq, LineCounter, type Node, type Pair, parseDocument } from "yaml";
import { didYouMean, type Fault, fault, nearest } from "../faults/index.ts";
import { addressOf } from "../runtime/index.ts";
import { lineTable, type Range } from "../text/index.ts";

/** One tool call a step makes. */
export interface ScriptCall {
	name: string;
	args: Record<string, unknown>;
}

/** What one model request answers. */
export interface ScriptStep {
	/** Text of the answer; `{{result}}`, `{{task}}` and `{{section:NAME}}` are filled in from the turn. */
	say?: string;
	/** Thinking text, shown before the answer. */
	thinking?: string;
	/** Tool calls; with any, the request stops with `toolUse` and pi executes them. */
	calls: ScriptCall[];
	/** A provider error with this message. */
	fail?: string;
	/** The answer hits the output limit (`stopReason: length`). */
	length?: boolean;
	/** Never answers: waits until the turn is aborted (a deadline or a stop). */
	hang?: boolean;
	/** Milliseconds to wait before answering. */
	delayMs?: number;
	/**
	 * Played as written, no template filled: a recorded answer (a cassette's) whose text may hold `{{`.
	 * Never read from a script file.
	 */
	literal?: true;
	range: Range;
}

/** A request about to be answered, as a script's {@link Script.check} sees it. */
export interface ScriptRequest {
	/** The visit path the request belongs to. */
	visit: string;
	/** Which request of the visit it is, from 0 (attempts of a visit continue the count). */
	index: number;
	/** The messages the model is sent (pi's), system messages included. */
	messages: readonly unknown[];
}

/** A whole script. */
export interface Script {
	file: string;
	/** Steps by key: a visit path, a node id, or `*` for any turn without a key of its own. */
	turns: Map<string, ScriptStep[]>;
	/** Where each key was written, for faults about keys. */
	keyRanges: Map<string, Range>;
	/** The scripted model's context window (default 128000). */
	contextWindow: number;
	/** Milliseconds added before every answer (default 0). */
	latencyMs: number;
	/**
	 * The scripted model's price in dollars per million tokens, as pi's model table gives a real model's;
	 * pi prices each answer from it. Default: no price (every turn costs $0, which a cost budget says).
	 */
	price?: ScriptPrice;
	/**
	 * Asked before each request is answered: text fails the request with it (a provider error) instead of
	 * answering. A cassette's replay compares what the model is asked with what was recorded here.
	 */
	check?: (request: ScriptRequest) => string | undefined;
}

/** Dollars per million tokens. */
export interface ScriptPrice {
	input: number;
	output: number;
	cacheRead: number;
	cacheWrite: number;
}

const TOP_KEYS = ["turns", "contextWindow", "latencyMs", "price"];
const PRICE_KEYS = ["input", "output", "cacheRead", "cacheWrite"] as const;
const STEP_KEYS = ["say", "thinking", "call", "args", "calls", "fail", "length", "hang", "delay"];

/** Reads a script. Never throws: a malformed script yields positioned faults. */
export function readScript(text: string, file: string): { value?: Script; faults: Fault[] } {
	const table = lineTable(text);
	const faults: Fault[] = [];
	const at = (node: Node | null | undefined): Range =>
		node?.range ? table.range(node.range[0], node.range[1]) : table.range(0, 0);
	const bad = (node: Node | null | undefined, path: string, message: string) =>
		faults.push(fault("script-invalid", file, at(node), path, message));
	const doc = parseDocument(text, { lineCounter: new LineCounter(), prettyErrors: false });
	if (doc.errors.length > 0) {
		const e = doc.errors[0];
		faults.push(
			fault("yaml-syntax", file, table.range(e.pos[0], Math.max(e.pos[0] + 1, e.pos[1])), "", e.message.split("\n")[0]),
		);
		return { faults };
	}
	if (!isMap(doc.contents)) {
		bad(doc.contents as Node, "", "a script is a mapping with `turns:`");
		return { faults };
	}
	const script: Script = { file, turns: new Map(), keyRanges: new Map(), contextWindow: 128_000, latencyMs: 0 };
	let sawTurns = false;
	for (const pair of doc.contents.items as Pair<Node, Node>[]) {
		const key = isScalar(pair.key) ? String(pair.key.value) : "";
		if (!TOP_KEYS.includes(key)) {
			bad(pair.key, key, `a script has no key \`${key}\`.${didYouMean(nearest(key, TOP_KEYS))}`);
			continue;
		}
		if (key === "contextWindow" || key === "latencyMs") {
			const v = isScalar(pair.value) ? pair.value.value : undefined;
			if (typeof v !== "number" || !Number.isInteger(v) || v < (key === "latencyMs" ? 0 : 1)) {
				bad(
					pair.value,
					key,
					`\`${key}\` must be a whole number${key === "latencyMs" ? " of milliseconds" : " of tokens"}`,
				);
			} else script[key] = v;
			continue;
		}
		if (key === "price") {
			const price = readPrice(pair.value, bad);
			if (price) script.price = price;
			continue;
		}
		sawTurns = true;
		if (!isMap(pair.value)) {
			bad(pair.value ?? pair.key, "turns", "`turns` maps node ids (or visit paths) to lists of steps");
			continue;
		}
		for (const turn of pair.value.items as Pair<Node, Node>[]) {
			const name = isScalar(turn.key) ? String(turn.key.value) : "";
			const steps = readSteps(turn.value, name, at, bad);
			script.keyRanges.set(name, at(turn.key));
			if (steps) script.turns.set(name, steps);
		}
	}
	if (!sawTurns) bad(doc.contents, "", "a script needs `turns:`");
	return faults.length ? { faults } : { value: script, faults };
}

type Bad = (node: Node | null | undefined, path: string, message: string) => void;

/** `price: { input: 3, output: 15 }`: dollars per million tokens; a key left out costs nothing. */
function readPrice(node: Node | null | undefined, bad: Bad): ScriptPrice | undefined {
	if (!isMap(node)) {
		bad(node, "price", "`price` maps `input`, `output`, `cacheRead`, `cacheWrite` to dollars per million tokens");
		return undefined;
	}
	const price: ScriptPrice = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
	for (const pair of node.items as Pair<Node, Node>[]) {
		const key = isScalar(pair.key) ? String(pair.key.value) : "";
		const v = isScalar(pair.value) ? pair.value.value : undefined;
		if (!(PRICE_KEYS as readonly string[]).includes(key))
			bad(pair.key, `price.${key}`, `a price has no key \`${key}\`.${didYouMean(nearest(key, PRICE_KEYS))}`);
		else if (typeof v !== "number" || v < 0)
			bad(pair.value, `price.${key}`, `\`price.${key}\` is dollars per million tokens, a number of at least 0`);
		else price[key as keyof ScriptPrice] = v;
	}
	return price;
}

function readSteps(
	node: Node | null | undefined,
	key: string,
	at: (n: Node | null | undefined) => Range,
	bad: Bad,
): ScriptStep[] | undefined {
	if (!isSeq(node)) {
		bad(node, key, `the steps of \`${key}\` are a list, one item per model request`);
		return undefined;
	}
	const steps: ScriptStep[] = [];
	for (const item of node.items as Node[]) {
		const step = readStep(item, key, at(item), bad);
		if (step) steps.push(step);
	}
	return steps.length === node.items.length ? steps : undefined;
}

function readStep(item: Node, key: string, range: Range, bad: Bad): ScriptStep | undefined {
	if (isScalar(item) && typeof item.value === "string") return { say: item.value, calls: [], range };
	if (!isMap(item)) {
		bad(item, key, "a step is a mapping such as `{ say: text }` or `{ call: read, args: {...} }`");
		return undefined;
	}
	const fields = new Map<string, Node>();
	let ok = true;
	for (const pair of item.items as Pair<Node, Node>[]) {
		const k = isScalar(pair.key) ? String(pair.key.value) : "";
		if (!STEP_KEYS.includes(k)) {
			bad(pair.key, key, `a step has no key \`${k}\`.${didYouMean(nearest(k, STEP_KEYS))}`);
			ok = false;
		} else if (pair.value) fields.set(k, pair.value);
	}
	const text = (k: string): string | undefined => {
		const v = fields.get(k);
		if (v === undefined) return undefined;
		if (isScalar(v) && (typeof v.value === "string" || typeof v.value === "number")) return String(v.value);
		bad(v, key, `\`${k}\` must be text`);
		ok = false;
		return undefined;
	};
	const flag = (k: string): boolean => {
		const v = fields.get(k);
		if (v === undefined) return false;
		if (isScalar(v) && typeof v.value === "boolean") return v.value;
		bad(v, key, `\`${k}\` must be true or false`);
		ok = false;
		return false;
	};
	const calls: ScriptCall[] = [];
	const call = text("call");
	if (call !== undefined) calls.push({ name: call, args: argsOf(fields.get("args"), key, bad) ?? {} });
	else if (fields.has("args")) {
		bad(fields.get("args"), key, "`args` goes with `call`");
		ok = false;
	}
	const many = fields.get("calls");
	if (many !== undefined) {
		if (!isSeq(many)) {
			bad(many, key, "`calls` is a list of `{ name, args }`");
			ok = false;
		} else {
			for (const c of many.items as Node[]) {
				const json = isMap(c) ? (c.toJSON() as Record<string, unknown>) : undefined;
				if (
					!json ||
					typeof json.name !== "string" ||
					(json.args !== undefined && (typeof json.args !== "object" || json.args === null || Array.isArray(json.args)))
				) {
					bad(c, key, "each of `calls` is `{ name: tool, args: {...} }`");
					ok = false;
				} else calls.push({ name: json.name, args: (json.args as Record<string, unknown>) ?? {} });
			}
		}
	}
	const delay = fields.get("delay");
	let delayMs: number | undefined;
	if (delay !== undefined) {
		if (isScalar(delay) && typeof delay.value === "number" && delay.value >= 0) delayMs = delay.value;
		else {
			bad(delay, key, "`delay` is a number of milliseconds");
			ok = false;
		}
	}
	const step: ScriptStep = { calls, range };
	const say = text("say");
	const thinking = text("thinking");
	const fail = text("fail");
	if (say !== undefined) step.say = say;
	if (thinking !== undefined) step.thinking = thinking;
	if (fail !== undefined) step.fail = fail;
	if (flag("length")) step.length = true;
	if (flag("hang")) step.hang = true;
	if (delayMs !== undefined) step.delayMs = delayMs;
	const outcomes = [say !== undefined || calls.length > 0, fail !== undefined, step.hang === true].filter(
		Boolean,
	).length;
	if (ok && outcomes !== 1) {
		bad(item, key, "a step does exactly one of: answer (`say` and/or `call`), `fail`, or `hang`");
		ok = false;
	}
	return ok ? step : undefined;
}

function argsOf(node: Node | undefined, key: string, bad: Bad): Record<string, unknown> | undefined {
	if (node === undefined) return {};
	if (!isMap(node)) {
		bad(node, key, "`args` is a mapping of the tool's parameters");
		return undefined;
	}
	return node.toJSON() as Record<string, unknown>;
}

/**
 * The steps a visit plays: its exact path, else its node address, else its node id, else an enclosing
 * node's address (a swarm's members play the swarm's entry), else `*`.
 */
export function stepsFor(script: Script, visit: string): { key: string; steps: ScriptStep[] } | undefined {
	const address = addressOf(visit);
	const parts = address.split("/");
	const id = parts[parts.length - 1] ?? address;
	const enclosing = parts.slice(0, -1).map((_, i) => parts.slice(0, parts.length - 1 - i).join("/"));
	for (const key of [visit, address, id, ...enclosing, "*"]) {
		const steps = script.turns.get(key);
		if (steps) return { key, steps };
	}
	return undefined;
}

/** Faults for script keys that name no node the flow has (`*` and visit paths of known nodes pass). */
export function checkScriptKeys(script: Script, nodeAddresses: readonly string[]): Fault[] {
	const known = new Set(nodeAddresses);
	const ids = new Set(nodeAddresses.map((a) => a.split("/").pop() ?? a));
	const faults: Fault[] = [];
	for (const [key, range] of script.keyRanges) {
		if (key === "*") continue;
		const address = addressOf(key);
		if (known.has(address) || ids.has(address)) continue;
		// A swarm's members play turns under the swarm's address (`survey/member[1]#2`).
		if ([...known].some((a) => address.startsWith(`${a}/`))) continue;
		const near = nearest(address, [...known, ...ids]);
		faults.push(
			fault(
				"script-unknown-node",
				script.file,
				range,
				key,
				`the script's key \`${key}\` names no agent node of the flow.${didYouMean(near)}`,
				{
					expected: near ? [near] : [],
				},
			),
		);
	}
	return faults;
}

/** What a `say` template reads from its turn; text parts are computed only when the template asks. */
export interface TemplateTurn {
	/** How many messages the model was sent. */
	messages: number;
	thinking: string;
	system: () => string;
	/** The last tool result's text. */
	result: () => string;
	/** The task the turn was given. */
	task: () => string;
	/** The names of the tools declared to the model in this request, comma-separated. */
	tools: () => string;
}

/**
 * Fills `{{result}}`, `{{task}}` and `{{section:NAME}}`, each optionally `|lines:N`, `{{messages}}`,
 * `{{thinking}}`, `{{system}}` and `{{tools}}`. One filler for the scripted model and dry runs, so a dry run with
 * `--script` shows what the run would say, not the raw template.
 */
export function fillTemplate(template: string, turn: TemplateTurn): string {
	return template
		.replace(/\{\{\s*messages\s*\}\}/g, String(turn.messages))
		.replace(/\{\{\s*thinking\s*\}\}/g, turn.thinking)
		.replace(/\{\{\s*system\s*\}\}/g, () => turn.system())
		.replace(/\{\{\s*tools\s*\}\}/g, () => turn.tools())
		.replace(
			/\{\{\s*(result|task|section:([^}|]+?))\s*(?:\|\s*lines:(\d+)\s*)?\}\}/g,
			(_m, what: string, name?: string, lines?: string) => {
				let text: string;
				if (what === "result") text = turn.result();
				else if (what === "task") text = turn.task();
				else text = section(turn.task(), (name ?? "").trim());
				if (lines)
					text = text
						.split("\n")
						.filter((l) => l.trim() !== "")
						.slice(0, Number(lines))
						.join("\n");
				return text;
			},
		);
}

function section(task: string, name: string): string {
	const lines = task.split("\n");
	const start = lines.findIndex((l) => l.trim() === `## ${name}`);
	if (start < 0) return "";
	const rest = lines.slice(start + 1);
	const end = rest.findIndex((l) => /^## /.test(l));
	return (end < 0 ? rest : rest.slice(0, end)).join("\n").trim();
}
