/**
 * `route`: a classifier picks who handles the input. Its answer is read by convention, not by a tool call
 * (the weak models this runs on do not call tools reliably), leniently in shape and strictly in content:
 * an unknown name picks nobody, and so does an answer naming two.
 *
 *   const handled = await route({ router, destinations: [coder, scout], input: task, cwd, spawn });
 *   handled.destination?.name;   // who was picked, or undefined
 */
import type { AgentDef } from "../agents/index.ts";
import { createPool } from "../runtime/index.ts";
import type { Result } from "../runtime/index.ts";
import type { WorkflowOptions } from "../runtime/index.ts";
import { readWorkflow, type WorkflowResult } from "./workflow-result.ts";

/** Options of {@link route}. */
export interface RouteOptions extends WorkflowOptions {
	/** Reads the input and names one destination. */
	router: AgentDef;
	/** Who may be picked; names must be distinct. */
	destinations: readonly AgentDef[];
	/** What the picked destination is given, as it is. */
	input: string;
}

/** A route's outcome. */
export type RouteResult = WorkflowResult & {
	/** The destination picked, or undefined when the router's answer named none, or more than one. */
	destination?: AgentDef;
	/** The router's answer as it gave it. */
	choice: string;
};

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * The one name `answer` picks among `names`, or undefined. A bare name (quotes, backticks, bold and a
 * full stop allowed) picks it; otherwise the answer must mention exactly one of the names as a whole
 * word. Never the closest name: a guess would route work to an agent nobody chose.
 */
export function parseChoice(answer: string, names: readonly string[]): string | undefined {
	const bare = answer.trim().replace(/^[\s"'`*_]+|[\s"'`*_.!]+$/g, "");
	const exact = names.filter((n) => n.toLowerCase() === bare.toLowerCase());
	if (exact.length === 1) return exact[0];
	const mentioned = names.filter((n) => new RegExp(`(?<![\\w-])${escapeRegExp(n)}(?![\\w-])`, "i").test(answer));
	return mentioned.length === 1 ? mentioned[0] : undefined;
}

/** The router's task: the destinations with what each is for, then the input. */
export function routerTask(input: string, destinations: readonly AgentDef[]): string {
	const list = destinations.map((d) => `- ${d.name}: ${d.description}`).join("\n");
	return `Choose who should handle the request below. Answer with exactly one name from this list, and nothing else.\n\n## Destinations\n\n${list}\n\n## Request\n\n${input}`;
}

/**
 * Asks the router, then gives the input to the destination it named. With a destination the route reads
 * as that destination's turn; without one (an unknown or ambiguous answer) it reads as the router's
 * turn, `ok` as that turn ran and `destination` undefined: deciding nothing is not a failed turn.
 */
export async function route(options: RouteOptions): Promise<RouteResult> {
	const names = options.destinations.map((d) => d.name);
	if (new Set(names).size !== names.length)
		throw new RangeError("pi-flows: route destinations must have distinct names");
	const pool = createPool(options);
	let reading: Result;
	let destination: AgentDef | undefined;
	let choice = "";
	try {
		const routed = await pool.turn(options.router, routerTask(options.input, options.destinations));
		reading = routed;
		choice = routed.output;
		const picked = routed.ok ? parseChoice(routed.output, names) : undefined;
		destination = options.destinations.find((d) => d.name === picked);
		if (destination) reading = await pool.turn(destination, options.input);
	} finally {
		await pool.closeAll();
	}
	return readWorkflow(reading, pool.trail, { ...(destination ? { destination } : {}), choice });
}
