/**
 * Valid flow files of any size, made up from a seed: nested loops, maps, choices and parallels around agent
 * turns, checks and asks, every read and condition naming something readable. The property tests mutate
 * them, and bench/check.ts checks big ones; the same seed always gives the same file.
 */

/** A small seeded generator (mulberry32): deterministic, so a failing case can be replayed by its seed. */
function random(seed: number): () => number {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

const READERS = ["scout", "reviewer", "planner", "synthesiser", "auditor"];
const TYPED = "{ ok: boolean, n: number, s: approved | rejected, items: [string] }";

interface Gen {
	next: () => number;
	pick: <T>(list: readonly T[]) => T;
	count: number;
	budget: number;
	sections: string[];
}

/** A flow text of about `size` nodes named `name`, that checks against the shipped agents. */
export function generateFlow(seed: number, size: number, name = "gen"): string {
	const next = random(seed);
	const g: Gen = {
		next,
		pick: (list) => list[Math.floor(next() * list.length)],
		count: 0,
		budget: Math.max(1, size),
		sections: [],
	};
	const lines: string[] = [];
	do lines.push(...sequence(g, 0, [], [], 1 + Math.floor(next() * 4)));
	while (g.count < g.budget);
	const body = g.sections.map((id) => `## ${id}\n\nDo the part named ${id}, from what you are handed.\n`).join("\n");
	return `---\nname: ${name}\ndescription: A generated flow of ${g.count} nodes.\ninput: string\nnodes:\n${lines.map((l) => `  ${l}`).join("\n")}\n---\n\n${body}`;
}

/**
 * `visible`: ids readable here (ended earlier in this or an enclosing sequence); `typed`: those whose output
 * has the TYPED fields, for conditions. Returns the sequence's YAML lines at indent 0 (callers indent).
 */
function sequence(g: Gen, depth: number, visible: string[], typed: string[], length: number, item = false): string[] {
	const out: string[] = [];
	const seen = [...visible];
	const seenTyped = [...typed];
	for (let i = 0; i < length && g.count < g.budget; i++) {
		const { lines, id, isTyped } = node(g, depth, seen, seenTyped, item);
		out.push(...lines);
		seen.push(id);
		if (isTyped) seenTyped.push(id);
	}
	return out;
}

function node(
	g: Gen,
	depth: number,
	visible: string[],
	typed: string[],
	item: boolean,
): { lines: string[]; id: string; isTyped: boolean } {
	const id = `n${++g.count}`;
	const roll = g.next();
	const nest = (lines: string[]) => lines.map((l) => `    ${l}`);
	if (depth < 4 && roll < 0.3 && g.count + 2 <= g.budget) {
		const kind = g.pick(["loop", "map", "choice", "parallel"] as const);
		if (kind === "loop") {
			const head = agent(g, visible, true, item);
			g.count++;
			const rest = sequence(g, depth + 1, [...visible, head.id], [...typed, head.id], Math.floor(g.next() * 3), item);
			const body = [...head.lines, ...rest];
			return {
				id,
				isTyped: false,
				lines: [
					`- id: ${id}`,
					`  loop: ${head.id}.output.ok || ${head.id}.output.n > 3`,
					`  max: ${1 + Math.floor(g.next() * 3)}`,
					"  do:",
					...nest(body),
				],
			};
		}
		if (kind === "map") {
			const body = sequence(g, depth + 1, visible, typed, 1 + Math.floor(g.next() * 3), true);
			return {
				id,
				isTyped: false,
				lines: [
					`- id: ${id}`,
					"  map: [first part, second part]",
					`  concurrency: ${1 + Math.floor(g.next() * 2)}`,
					"  do:",
					...nest(body),
				],
			};
		}
		if (kind === "choice") {
			const when = typed.length ? `${g.pick(typed)}.output.s == "approved"` : 'input == "go"';
			const body = sequence(g, depth + 1, visible, typed, 1 + Math.floor(g.next() * 2), item);
			const other = g.next() < 0.5 ? sequence(g, depth + 1, visible, typed, 1, item) : [];
			const dflt = other.length ? ["  default:", ...nest(other)] : ["  default: []"];
			return {
				id,
				isTyped: false,
				lines: [
					`- id: ${id}`,
					"  choice:",
					`    - when: ${when}`,
					"      do:",
					...body.map((l) => `        ${l}`),
					...dflt,
				],
			};
		}
		const one = sequence(g, depth + 1, visible, typed, 1, item);
		let two = sequence(g, depth + 1, visible, typed, 1, item);
		if (!two.length) {
			// The first branch spent the budget; a parallel still needs two, so the second is one turn more.
			two = agent(g, visible, false, item).lines;
			g.count++;
		}
		return {
			id,
			isTyped: false,
			lines: [
				`- id: ${id}`,
				"  parallel:",
				"    left:",
				...one.map((l) => `      ${l}`),
				"    right:",
				...two.map((l) => `      ${l}`),
			],
		};
	}
	if (roll < 0.36)
		return { id, isTyped: false, lines: [`- id: ${id}`, "  check: .pi/checks/test.sh", "  timeout: 5m"] };
	if (roll < 0.4)
		return { id, isTyped: false, lines: [`- id: ${id}`, '  ask: "Go on?"', "  confirm: true", "  default: true"] };
	return agent(g, visible, g.next() < 0.5, item, id);
}

function agent(
	g: Gen,
	visible: string[],
	isTyped: boolean,
	item: boolean,
	id = `n${g.count + 1}`,
): { lines: string[]; id: string; isTyped: boolean } {
	g.sections.push(id);
	const reads = ["input", ...(item ? ["item"] : []), ...(visible.length ? [g.pick(visible)] : [])];
	const lines = [`- id: ${id}`, `  agent: ${g.pick(READERS)}`, `  reads: [${[...new Set(reads)].join(", ")}]`];
	if (isTyped) lines.push(`  output: ${TYPED}`);
	if (g.next() < 0.2) lines.push(`  timeout: ${g.pick(["90s", "10m", "1h30m"])}`);
	if (g.next() < 0.2) lines.push("  retry: 1");
	return { lines, id, isTyped };
}
