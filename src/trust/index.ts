/**
 * One trust rule for every surface. Repository content (flows, agents, chains, flow tests, scripts,
 * settings, drive records, run folders) is read or run only when the person trusted the project: with
 * `--project` on the command line, pi's project trust in the extension, or `PI_FLOWS_TRUST_PROJECT=1` for
 * headless runs in a repository the person owns. Every refusal says so in the same words, naming the
 * file and how to trust; records pi-flows made itself are trusted by their seal instead (src/runs).
 */
export { type Project, projectOf, real, sameRepository, within } from "./project.ts";
export {
	PROJECT_TRUST,
	pathTrust,
	type PathTrust,
	TRUST_ENV,
	TRUST_HOW,
	untrustedPath,
	untrustedRecord,
	untrustedSetting,
} from "./rule.ts";
