/** Opens a pi host on the scripted model with a script written inline. */
import { openHost, type PiHost, readScript } from "../../src/pi/index.ts";
import type { TempProject } from "./project.ts";

export async function scriptedHost(project: TempProject, scriptYaml: string): Promise<PiHost> {
	const read = readScript(scriptYaml, "inline-script.yaml");
	if (!read.value) throw new Error(`bad test script: ${JSON.stringify(read.faults)}`);
	return openHost({ cwd: project.cwd, agentDir: project.agentDir, script: read.value });
}
