/**
 * Reads a planner's answer into tasks. Lenient about shape, because real planners asked for a JSON array
 * answered with bare objects and no brackets; strict about content, because a task for an agent nobody
 * named must not be handed to a plausible neighbour.
 *
 *   parsePlan('{"agent":"scout","task":"a"}\n{"agent":"ghost","task":"b"}', ["scout"])
 *   // { tasks: [{ agent: "scout", task: "a" }], dropped: [{ item: {...ghost}, reason: "unknown agent `ghost`" }] }
 */

/** One task of a plan: which worker, doing what. */
export interface PlanTask {
	agent: string;
	task: string;
}

/** An item of the answer that is not a usable task, and why. */
export interface DroppedTask {
	item: unknown;
	reason: string;
}

/** A parsed plan. */
export interface Plan {
	tasks: PlanTask[];
	dropped: DroppedTask[];
}

/**
 * Every JSON value in `text`, whatever the shape: a fenced block's content is read first; a whole answer
 * that parses is taken as it is; otherwise each balanced top-level `[...]` or `{...}` that parses is.
 */
function jsonValues(text: string): unknown[] {
	const fenced = [...text.matchAll(/```[\w-]*[ \t]*\r?\n([\s\S]*?)```/g)].map((m) => m[1]);
	const sources = fenced.length > 0 ? fenced : [text];
	const values: unknown[] = [];
	for (const source of sources) {
		try {
			values.push(JSON.parse(source.trim()));
			continue;
		} catch {
			// Not one JSON value: fall through to scanning for several.
		}
		for (const chunk of balancedChunks(source)) {
			try {
				values.push(JSON.parse(chunk));
			} catch {
				// A bracketed stretch of prose, not JSON: it was never a task.
			}
		}
	}
	return values;
}

/** Top-level bracketed stretches, with brackets inside JSON strings ignored. */
function balancedChunks(text: string): string[] {
	const chunks: string[] = [];
	let depth = 0;
	let start = -1;
	let inString = false;
	for (let i = 0; i < text.length; i++) {
		const c = text[i];
		if (inString) {
			if (c === "\\") i++;
			else if (c === '"') inString = false;
		} else if (c === '"' && depth > 0) inString = true;
		else if (c === "{" || c === "[") {
			if (depth === 0) start = i;
			depth++;
		} else if ((c === "}" || c === "]") && depth > 0) {
			depth--;
			if (depth === 0) chunks.push(text.slice(start, i + 1));
		}
	}
	return chunks;
}

/** Items of the values: an array gives its elements, `{ tasks: [...] }` its tasks, an object itself. */
function items(values: unknown[]): unknown[] {
	return values.flatMap((v) => {
		if (Array.isArray(v)) return v;
		if (v && typeof v === "object" && Array.isArray((v as { tasks?: unknown }).tasks))
			return (v as { tasks: unknown[] }).tasks;
		return [v];
	});
}

/**
 * Reads `answer` against the known worker names. A name matches regardless of case and nothing else: an
 * unknown one is dropped with its reason, as is an item without a non-empty `agent` and `task`.
 */
export function parsePlan(answer: string, workers: readonly string[]): Plan {
	const plan: Plan = { tasks: [], dropped: [] };
	for (const item of items(jsonValues(answer))) {
		const record =
			item && typeof item === "object" && !Array.isArray(item) ? (item as Record<string, unknown>) : undefined;
		const agent = typeof record?.agent === "string" ? record.agent.trim() : "";
		const task = typeof record?.task === "string" ? record.task.trim() : "";
		if (!agent || !task) {
			plan.dropped.push({ item, reason: "not a task: an object with a non-empty `agent` and `task` is" });
			continue;
		}
		const known = workers.filter((w) => w.toLowerCase() === agent.toLowerCase());
		if (known.length !== 1) {
			plan.dropped.push({ item, reason: `unknown agent \`${agent}\`` });
			continue;
		}
		plan.tasks.push({ agent: known[0], task });
	}
	return plan;
}
