/**
 * A cassette as a file: `<flow>.<name>.cassette.yaml` beside the flow, YAML meant to be read in a diff and
 * committed. Written in one fixed order (visits as the run ended them, keys as listed here), with nothing
 * that differs between two writes of the same run (no time, no ids, no absolute folder), so a re-record of
 * an unchanged run is byte-identical. Read back with every problem named by its key.
 *
 *   cassette: 1
 *   flow: two
 *   run: 2026-12-02_04-30-34-416-two
 *   model: wire/wire-1
 *   visits:
 *     look:
 *       identity: { key: 4ca2…, parts: { section: 67b4…, … } }
 *       turns:
 *         - asked: { system: 1c…, tools: [read, grep], schemas: 9e…, messages: [user 77…] }
 *           answer: { say: reading, calls: [{ name: read, args: { path: notes.md } }] }
 */
import { Document, parseDocument } from "yaml";
import type { VisitIdentity } from "../identity/index.ts";
import { byMember } from "../kinds/facts.ts";
import type { Found, Turn } from "../identity/index.ts";

/** The format's version: a reader refuses a cassette of another. */
export const CASSETTE_VERSION = 1;

/** One visit's recording. */
export interface CassetteVisit {
	node: string;
	/** The identity the visit had (`src/identity`): its key, parts and the words a difference is said in. */
	identity?: Pick<VisitIdentity, "key" | "parts" | "shown"> & { v?: number };
	/** An agent visit's turns (a swarm's: none, its members' are under `members`). */
	turns: Turn[];
	/**
	 * The project's files the visit's tools read by path, each with its digest as the visit saw it (the
	 * identity's `tree` part, down to the files the visit depended on), for a replay to compare.
	 */
	tree?: Record<string, string>;
	/** A swarm visit's members' turns, by the member's name and round (`scout[1]#2`), in that order. */
	members?: Map<string, Turn[]>;
}

/** A whole cassette. */
export interface Cassette {
	flow: string;
	/** The run it was recorded from: a run folder's name, or a database run id. */
	run: string;
	backend: "folder" | "dbos";
	/** The run's `--model`, when it had one (a replay asks the same of every node). */
	model?: string;
	/** Visits by path, in the order they ended. */
	visits: Map<string, CassetteVisit>;
	/** Secret-shaped values masked while recording, and where. */
	redacted: (Found & { visit: string })[];
}

/** The cassette as YAML text, always the same text for the same cassette. */
export function writeCassette(c: Cassette, head: string): string {
	const visits: Record<string, unknown> = {};
	for (const [path, v] of c.visits) {
		visits[path] = {
			node: v.node,
			...(v.identity
				? {
						identity: {
							...(v.identity.v !== undefined ? { v: v.identity.v } : {}),
							key: v.identity.key,
							parts: sorted(v.identity.parts),
							...(v.identity.shown ? { shown: shownOf(v.identity.shown) } : {}),
						},
					}
				: {}),
			...(v.tree && Object.keys(v.tree).length ? { tree: v.tree } : {}),
			...(v.members?.size && !v.turns.length
				? {
						members: Object.fromEntries(
							[...v.members.keys()].sort(byMember).map((label) => [label, (v.members?.get(label) ?? []).map(turnData)]),
						),
					}
				: { turns: v.turns.map(turnData) }),
		};
	}
	const data = {
		cassette: CASSETTE_VERSION,
		flow: c.flow,
		run: c.run,
		backend: c.backend,
		...(c.model ? { model: c.model } : {}),
		visits,
		...(c.redacted.length
			? { redacted: c.redacted.map((r) => ({ visit: r.visit, where: r.where, kind: r.kind })) }
			: {}),
	};
	const doc = new Document(data);
	doc.commentBefore = head;
	return doc.toString({ lineWidth: 0, flowCollectionPadding: true });
}

function turnData(t: Turn): { asked: Turn["asked"]; answer: Turn["answer"] } {
	return { asked: t.asked, answer: t.answer };
}

/** The words a difference is named with, the tree left out (a replay runs in a folder of its own). */
function shownOf(shown: NonNullable<VisitIdentity["shown"]>): Record<string, string> {
	const out: Record<string, string> = {};
	for (const k of ["agent", "toolsFrom", "model", "thinking"] as const) if (shown[k]) out[k] = String(shown[k]);
	return out;
}

function sorted(parts: Record<string, string>): Record<string, string> {
	return Object.fromEntries(
		Object.keys(parts)
			.sort()
			.map((k) => [k, parts[k] as string]),
	);
}

/** A list of recorded turns read back; each malformed one is a problem said `where` it is. */
function turnList(list: readonly unknown[], where: string, bad: (what: string) => void): Turn[] {
	const turns: Turn[] = [];
	list.forEach((t: unknown, i: number) => {
		const turn = t as Record<string, unknown> | null;
		const asked = turn?.asked as Turn["asked"] | undefined;
		const answer = turn?.answer as Turn["answer"] | undefined;
		if (
			!asked ||
			typeof asked.system !== "string" ||
			!Array.isArray(asked.messages) ||
			!Array.isArray(asked.tools) ||
			!answer ||
			typeof answer !== "object"
		)
			bad(`${where}, turn ${i + 1}: a turn is \`{ asked: { system, tools, schemas, messages }, answer }\``);
		else if (answer.calls !== undefined && !Array.isArray(answer.calls))
			bad(`${where}, turn ${i + 1}: \`answer.calls\` is a list of \`{ name, args }\``);
		else turns.push({ asked, answer });
	});
	return turns;
}

/** Reads a cassette; every problem is a sentence naming the file and the key. */
export function readCassette(text: string, file: string): { value?: Cassette; problems: string[] } {
	const doc = parseDocument(text);
	if (doc.errors.length) return { problems: [`${file}: ${doc.errors[0]?.message.split("\n")[0]}`] };
	const data = doc.toJS({ maxAliasCount: 100 }) as Record<string, unknown> | null;
	const problems: string[] = [];
	const bad = (what: string) => problems.push(`${file}: ${what}`);
	if (!data || typeof data !== "object" || Array.isArray(data))
		return { problems: [`${file}: a cassette is a mapping`] };
	if (data.cassette !== CASSETTE_VERSION)
		bad(
			`\`cassette\` is ${JSON.stringify(data.cassette)}; this pi-flows reads cassettes of version ${CASSETTE_VERSION}`,
		);
	for (const k of ["flow", "run"]) if (typeof data[k] !== "string") bad(`\`${k}\` must be text`);
	const visits = new Map<string, CassetteVisit>();
	const raw = data.visits;
	if (!raw || typeof raw !== "object" || Array.isArray(raw)) bad("`visits` maps visit paths to their turns");
	else
		for (const [path, v] of Object.entries(raw as Record<string, unknown>)) {
			const visit = v as Record<string, unknown> | null;
			const members = visit?.members;
			const swarm = members !== undefined && members !== null && typeof members === "object" && !Array.isArray(members);
			if (!visit || typeof visit !== "object" || (!Array.isArray(visit.turns) && !swarm)) {
				bad(`visit \`${path}\` needs \`turns\`, a list (or a swarm's \`members\`, a mapping)`);
				continue;
			}
			const turns = turnList(Array.isArray(visit.turns) ? visit.turns : [], `visit \`${path}\``, bad);
			const kept = swarm
				? new Map(
						Object.entries(members as Record<string, unknown>).map(([label, list]) => [
							label,
							turnList(Array.isArray(list) ? list : [null], `visit \`${path}\`, member \`${label}\``, bad),
						]),
					)
				: undefined;
			const tree = visit.tree as CassetteVisit["tree"];
			if (
				tree !== undefined &&
				(!tree || typeof tree !== "object" || Object.values(tree).some((d) => typeof d !== "string"))
			)
				bad(`visit \`${path}\`: \`tree\` maps file paths to their digests`);
			const identity = visit.identity as CassetteVisit["identity"];
			if (identity !== undefined && (typeof identity?.key !== "string" || typeof identity.parts !== "object"))
				bad(`visit \`${path}\`: \`identity\` is \`{ key, parts }\``);
			visits.set(path, {
				node: typeof visit.node === "string" ? visit.node : (path.split("/").pop() ?? path),
				...(identity ? { identity } : {}),
				...(tree ? { tree } : {}),
				turns,
				...(kept ? { members: kept } : {}),
			});
		}
	if (problems.length) return { problems };
	return {
		value: {
			flow: data.flow as string,
			run: data.run as string,
			backend: data.backend === "dbos" ? "dbos" : "folder",
			...(typeof data.model === "string" ? { model: data.model } : {}),
			visits,
			redacted: Array.isArray(data.redacted) ? (data.redacted as Cassette["redacted"]) : [],
		},
		problems,
	};
}
