import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { agent, sequence } from "./helpers/flows.ts";
import { contentOf, type Line, print, rpc, type Sandbox, sandbox } from "./helpers/pi-process.ts";

let box: Sandbox;
beforeEach(() => {
	box = sandbox();
	box.write("~agent/agents/echo.md", agent("echo"));
	box.write(".pi/flows/secret.md", sequence("secret", [{ id: "leak", agent: "echo" }]));
	box.write("secret.script.yaml", "turns:\n  leak:\n    - say: PROJECT FLOW RAN\n");
});
afterEach(() => box.cleanup());

const confirms = (lines: Line[]) => lines.filter((l) => l.type === "extension_ui_request" && l.method === "confirm");
const ran = (lines: Line[]) => lines.some((l) => l.type === "message_end" && contentOf(l).includes("PROJECT FLOW RAN"));

describe("project agents and flows are repository content", () => {
	it("are refused, naming the file, when the person declines to load them", async () => {
		const pi = rpc(box, { onUi: (r) => (r.method === "confirm" ? { confirmed: false } : undefined) });
		try {
			await pi.prompt("/run secret tell me --script secret.script.yaml");
			expect(String(confirms(pi.lines)[0]?.message)).toContain(".pi/flows/secret.md");
			const note = pi.lines.find((l) => l.method === "notify");
			expect(String(note?.message)).toMatch(
				/^\/run secret: refused\n\.pi\/flows\/secret\.md is this project's flow `secret`, and this project is not trusted: .* Nothing was run\.$/,
			);
			expect(ran(pi.lines)).toBe(false);
			// Asked once per session: /flows lists the file without reading it, and asks nothing more.
			await pi.prompt("/flows");
			expect(confirms(pi.lines)).toHaveLength(1);
			const listing = String(pi.lines.filter((l) => l.method === "notify").at(-1)?.message);
			expect(listing).toMatch(
				/secret\s+project\s+not loaded\s+\.pi\/flows\/secret\.md \(this project is not trusted\)/,
			);
		} finally {
			await pi.close();
		}
	});

	it("run when the person confirms", async () => {
		const pi = rpc(box, { onUi: (r) => (r.method === "confirm" ? { confirmed: true } : undefined) });
		try {
			await pi.prompt("/run secret tell me --script secret.script.yaml");
			expect(ran(pi.lines)).toBe(true);
		} finally {
			await pi.close();
		}
	});

	it("are refused with nobody to ask (pi -p), unless PI_FLOWS_TRUST_PROJECT=1 says so", () => {
		const refused = print(box, "/run secret tell me --script secret.script.yaml");
		expect(refused.stderr).toContain(
			".pi/flows/secret.md is this project's flow `secret`, and this project is not trusted",
		);
		expect(refused.stderr).not.toContain("PROJECT FLOW RAN");
		const allowed = print(box, "/run secret tell me --script secret.script.yaml", [], { PI_FLOWS_TRUST_PROJECT: "1" });
		expect(allowed.stderr).toContain("PROJECT FLOW RAN");
	});
});
