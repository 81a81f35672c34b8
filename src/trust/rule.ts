/**
 * The trust of one file given by path. A file counts as the person's when its real location is in the
 * package, in their pi agent folder, or in no repository at all; as this project's when it is in this
 * project's repository (any worktree of it: pi-flows' copies, a `git worktree` beside it); as another
 * project's otherwise. This project's content needs trust; another project's is never this project's to
 * trust: run it from there.
 *
 * Example: `pathTrust("../other/.pi/flows/x.md", { cwd, trusted: true })` → `{ ok: false, refusal:
 * "../other/.pi/flows/x.md belongs to another repository (/src/other) …" }`.
 */
import { agentDir, PACKAGE_ROOT } from "../agents/locations.ts";
import { projectOf, real, sameRepository, within } from "./project.ts";

/** Set to `1` to trust the project of the working folder without asking (headless runs in a repository you own). */
export const TRUST_ENV = "PI_FLOWS_TRUST_PROJECT";

/** How a person trusts a project, said once for every surface. */
export const TRUST_HOW = "add `--project` on the command line, or trust the project in pi";

/** How a command reads project flows. */
export const PROJECT_TRUST = `project flows are repository content, read only when trusted: ${TRUST_HOW}`;

/** A setting of the untrusted project's `.pi/settings.json` that was not read: `what` says what it would do. */
export function untrustedSetting(file: string, what: string): string {
	return `${file} ${what}, which was not read: the project's settings are repository content, read only when trusted: ${TRUST_HOW}`;
}

/** The refusal of this project's file given by path while the project is not trusted. */
export function untrustedPath(path: string): string {
	return `${path} is inside this project, so it is repository content: ${PROJECT_TRUST} (or set ${TRUST_ENV}=1). Nothing was run.`;
}

/**
 * The refusal of a record in the project that pi-flows did not make here (no seal, or one that does not
 * check): the same words, for drive records and run folders.
 */
export function untrustedRecord(path: string, why: string): string {
	return `${path} is repository content that pi-flows did not make here (${why}), so it is not read: a record is trusted only when its seal shows this person made it in this folder`;
}

/** Whether a file given by path may be read as a definition, and if not, the words that say why. */
export type PathTrust =
	| { ok: true; owner: "package" | "user" | "project" | "outside" }
	| { ok: false; refusal: string };

/** The trust of `file` (as typed: `shown`) from `cwd`, whose project is trusted or not. */
export function pathTrust(
	file: string,
	options: { cwd: string; trusted: boolean; env?: NodeJS.ProcessEnv; shown?: string },
): PathTrust {
	const path = real(file);
	const shown = options.shown ?? file;
	if (within(real(PACKAGE_ROOT), path)) return { ok: true, owner: "package" };
	if (within(real(agentDir(options.env ?? process.env)), path)) return { ok: true, owner: "user" };
	const owner = projectOf(path, options.cwd);
	if (!owner) return { ok: true, owner: "outside" };
	const here = projectOf(options.cwd, options.cwd);
	if (!sameRepository(owner, here)) {
		return {
			ok: false,
			refusal: `${shown} belongs to another repository (${owner.root}), not this project, so it is repository content this project's trust does not cover; run it from there (\`cd ${owner.root}\`, then \`--project\` or pi's trust). Nothing was run.`,
		};
	}
	return options.trusted ? { ok: true, owner: "project" } : { ok: false, refusal: untrustedPath(shown) };
}
