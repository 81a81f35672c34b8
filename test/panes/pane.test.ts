/**
 * Issue 17, point 2: a subagent in its own pane. Inside tmux, a visit whose node (or agent, as combo's
 * `openInHerdr`) asks for a pane opens a tmux pane following its turns, closed when the visit ends; outside
 * tmux and herdr it is a note on stderr, never an error. The test runs the real `pi-flows` binary inside a
 * tmux server of its own (its own socket), and the scripted turn itself lists the server's panes with `bash`,
 * so what it sees is what a person would see while the visit runs.
 */
import { cliBin } from "../helpers/built-cli.ts";
import { execFileSync, spawnSync } from "node:child_process";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type TempProject, tempProject } from "../helpers/project.ts";

let p: TempProject;
const socket = `pi-flows-17-${process.pid}`;
const tmux = (...args: string[]) => execFileSync("tmux", ["-L", socket, ...args], { encoding: "utf8" }).trim();

beforeEach(() => {
	p = tempProject();
	tmux("new-session", "-d", "-s", "t", "-x", "200", "-y", "50");
});
afterEach(() => {
	try {
		tmux("kill-server");
	} catch {
		// Already gone.
	}
	p.cleanup();
});

/** The env of a process started in the session's first pane, as tmux gives it. */
function insideTmux(): NodeJS.ProcessEnv {
	const [path, pid] = [tmux("display-message", "-p", "#{socket_path}"), tmux("display-message", "-p", "#{pid}")];
	return { ...p.env, TMUX: `${path},${pid},0`, TMUX_PANE: tmux("display-message", "-p", "#{pane_id}") };
}

const FLOW = (pane: string) =>
	`---\nname: watch\ndescription: d\ninput: string\nnodes:\n  - id: look\n    agent: looker\n    reads: [input]\n${pane}  - id: after\n    agent: looker\n    reads: [look]\n---\n\n## look\n\nLook.\n\n## after\n\nSay so.\n`;
const LOOKER = "---\nname: looker\ndescription: lists panes\ntools: bash\n---\nYou look.\n";
const SCRIPT = `turns:\n  look:\n    - say: listing the panes\n      call: bash\n      args: { command: "sleep 1; tmux -L ${socket} list-panes -a -F '#{pane_title}|#{pane_current_command}'; for id in $(tmux -L ${socket} list-panes -a -F '#{pane_id}'); do tmux -L ${socket} capture-pane -p -t $id; done" }\n    - say: "{{result}}"\n  after:\n    - call: bash\n      args: { command: "tmux -L ${socket} list-panes -a -F '#{pane_title}'" }\n    - say: "{{result}}"\n`;

function run(env: NodeJS.ProcessEnv) {
	const r = spawnSync(process.execPath, [cliBin(), "run", "watch", "q", "--script", "s.yaml", "--project", "--json"], {
		cwd: p.cwd,
		env,
		encoding: "utf8",
		timeout: 60_000,
	});
	return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("a pane per visit", () => {
	it("inside tmux, `pane: true` opens a pane following the visit, gone when the visit ends", () => {
		p.write(".pi/agents/looker.md", LOOKER);
		p.write(".pi/flows/watch.md", FLOW("    pane: true\n"));
		p.write("s.yaml", SCRIPT);
		const r = run(insideTmux());
		expect(r.code, r.stderr).toBe(0);
		const visits = JSON.parse(r.stdout).visits as { path: string; output: string }[];
		const during = visits.find((v) => v.path === "look")?.output ?? "";
		// While `look` ran, a second pane followed it, titled with the agent and the visit, running `tail`.
		expect(during).toMatch(/looker @ look\|tail/);
		// The pane shows the visit's transcript file: its head line, then the turn's message and tool call.
		expect(during).toMatch(/looker @ look · scripted\/scripted/);
		expect(during).toMatch(/listing the panes/);
		// `after` has no pane, and by then `look`'s was closed.
		const later = visits.find((v) => v.path === "after")?.output ?? "";
		expect(later).not.toMatch(/looker @ look/);
		expect(tmux("list-panes", "-a", "-F", "#{pane_id}").split("\n")).toHaveLength(1);
	}, 120_000);

	it("combo's `openInHerdr: true` on the agent asks the same", () => {
		p.write(".pi/agents/looker.md", LOOKER.replace("tools: bash\n", "tools: bash\nopenInHerdr: true\ncolor: green\n"));
		p.write(
			".pi/flows/watch.md",
			FLOW("    pane: false\n").replace(
				"  - id: after\n    agent: looker",
				"  - id: after\n    agent: looker\n    pane: false",
			),
		);
		p.write("s.yaml", SCRIPT);
		// The node says `pane: false` for both visits: a node's word wins over its agent's.
		const off = run(insideTmux());
		expect(off.code, off.stderr).toBe(0);
		expect(JSON.parse(off.stdout).visits.find((v: { path: string }) => v.path === "look").output).not.toMatch(
			/looker @ look/,
		);
		p.write(".pi/flows/watch.md", FLOW(""));
		const on = run(insideTmux());
		expect(on.code, on.stderr).toBe(0);
		expect(JSON.parse(on.stdout).visits.find((v: { path: string }) => v.path === "look").output).toMatch(
			/looker @ look\|tail/,
		);
	}, 120_000);

	it("outside tmux and herdr it is one note, and the run goes on", () => {
		p.write(".pi/agents/looker.md", LOOKER);
		p.write(".pi/flows/watch.md", FLOW("    pane: true\n"));
		p.write("s.yaml", 'turns:\n  "*":\n    - say: ok\n');
		const env = { ...p.env };
		delete env.TMUX;
		delete env.TMUX_PANE;
		delete env.HERDR_ENV;
		const r = run(env);
		expect(r.code, r.stderr).toBe(0);
		expect(r.stderr.match(/note: `look` asks for a pane/g)).toHaveLength(1);
	}, 120_000);
});
