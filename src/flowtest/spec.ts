/**
 * A flow test (`<flow>.test.yaml` beside the flow): the input, the scripted answers per node and visit,
 * the person's answers and the checks' results, and what must come out. Authors test a flow offline,
 * before paying for a run.
 *
 *   input: "add a flag"
 *   script: { turns: { plan: [{ call: submit, args: { subtasks: [{ text: a }] } }] } }
 *   answers: { go: true }
 *   checks: { tests: { passed: true } }
 *   files: { README.md: "# Sample" }   # written into the scratch folder the test runs in
 *   expect: { ok: true, visits: [plan, ...], outputs: { plan: { subtasks: [{ text: a }] } } }
 *
 * Or, instead of `script:`, `cassette: <flow>.<name>.cassette.yaml`: a recorded run's answers, replayed
 * with what each request is asked compared with the recording (`pi-flows record`, src/cassette).
 */
import { parseDocument } from "yaml";

/** What a test expects. */
export interface Expectations {
	ok?: boolean;
	/** The error kind when the run fails. */
	error?: string;
	failedAt?: string;
	/** The visit paths in the order they ended. */
	visits?: string[];
	/** The visit paths that ended, in any order. */
	visited?: string[];
	/** Values by visit path (or node id when it has one visit); `{ contains: text }` for text. */
	outputs?: Record<string, unknown>;
	output?: unknown;
}

/** A parsed test file. */
export interface FlowTest {
	file: string;
	flow?: string;
	input: unknown;
	/** The scripted-model script, as YAML text (the same format as `--script`). */
	script: string;
	/** A cassette to replay instead of the script, by path from the test's folder. */
	cassette?: string;
	answers: Record<string, unknown>;
	/**
	 * Check results by visit path (`fix#2/tests`, as `pi-flows record` writes them, with the `script` it
	 * ran) or by script path (any visit of that script); default: passed.
	 */
	checks: Record<string, { script?: string; passed: boolean; report?: string }>;
	/** Files written into the scratch folder the test runs in, by path. */
	files: Record<string, string>;
	expect: Expectations;
}

const KEYS = ["flow", "input", "script", "cassette", "answers", "checks", "files", "expect"];
const EXPECT_KEYS = ["ok", "error", "failedAt", "visits", "visited", "outputs", "output"];

/** Reads a test file; problems are sentences naming the key. */
export function readFlowTest(text: string, file: string): { value?: FlowTest; problems: string[] } {
	const doc = parseDocument(text);
	if (doc.errors.length) return { problems: [`${file}: ${doc.errors[0].message.split("\n")[0]}`] };
	let data: Record<string, unknown> | null;
	try {
		data = doc.toJS({ maxAliasCount: 100 }) as Record<string, unknown> | null;
	} catch (error) {
		return { problems: [`${file}: ${(error instanceof Error ? error.message : String(error)).split("\n")[0]}`] };
	}
	if (!data || typeof data !== "object" || Array.isArray(data))
		return { problems: [`${file}: a flow test is a mapping`] };
	const problems = Object.keys(data)
		.filter((k) => !KEYS.includes(k))
		.map((k) => `${file}: a flow test has no key \`${k}\` (it has ${KEYS.join(", ")})`);
	const expect = (data.expect ?? {}) as Record<string, unknown>;
	if (typeof expect !== "object" || Array.isArray(expect)) problems.push(`${file}: \`expect\` is a mapping`);
	else
		for (const k of Object.keys(expect))
			if (!EXPECT_KEYS.includes(k))
				problems.push(`${file}: \`expect\` has no key \`${k}\` (it has ${EXPECT_KEYS.join(", ")})`);
	if (!("input" in data)) problems.push(`${file}: a flow test needs \`input\``);
	if (data.cassette !== undefined && typeof data.cassette !== "string")
		problems.push(`${file}: \`cassette\` is the path of a cassette file, from the test's folder`);
	if (data.cassette !== undefined && data.script !== undefined)
		problems.push(`${file}: a flow test has \`script\` or \`cassette\`, not both`);
	if (problems.length) return { problems };
	const script =
		data.script === undefined ? "turns: {}\n" : typeof data.script === "string" ? data.script : stringify(data.script);
	return {
		value: {
			file,
			...(typeof data.flow === "string" ? { flow: data.flow } : {}),
			input: data.input,
			script,
			...(typeof data.cassette === "string" ? { cassette: data.cassette } : {}),
			answers: (data.answers ?? {}) as Record<string, unknown>,
			checks: (data.checks ?? {}) as FlowTest["checks"],
			files: (data.files ?? {}) as Record<string, string>,
			expect: expect as Expectations,
		},
		problems,
	};
}

function stringify(value: unknown): string {
	return parseDocument(JSON.stringify(value)).toString();
}
