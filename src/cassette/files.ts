/**
 * Where a recording goes and the flow test around it: `<flow>.<name>.cassette.yaml` and
 * `<flow>.<name>.test.yaml` beside the flow file, the test naming the cassette by its file name, so the
 * pair moves (and is committed) together and `pi-flows test` finds the test beside the flow as any other.
 */
import { Document } from "yaml";
import { basename, dirname, join } from "node:path";
import type { RecordedTest } from "./record.ts";

/** A recording's name (`--name`): what a file name can hold and a person can type, never a path. */
export const NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** The two files of a recording named `name` of the flow in `flowFile`. */
export function cassetteFiles(flowFile: string, flow: string, name: string): { cassette: string; test: string } {
	const dir = dirname(flowFile);
	return { cassette: join(dir, `${flow}.${name}.cassette.yaml`), test: join(dir, `${flow}.${name}.test.yaml`) };
}

/** The flow test replaying `cassetteFile` (a path beside the test), as YAML, the same text for the same run. */
export function testText(t: RecordedTest, flow: string, cassetteFile: string, head: string): string {
	const data: Record<string, unknown> = { flow, cassette: basename(cassetteFile), input: t.input };
	if (Object.keys(t.files).length) data.files = t.files;
	if (Object.keys(t.answers).length) data.answers = t.answers;
	if (Object.keys(t.checks).length) data.checks = t.checks;
	data.expect = t.expect;
	const doc = new Document(data);
	doc.commentBefore = head;
	return doc.toString({ lineWidth: 0, flowCollectionPadding: true });
}
