/**
 * Command-line parsing: flags anywhere, `--flag value` or `--flag=value`, and a refusal (exit 2) for an
 * unknown flag or a missing value, with the nearest flag. Nothing is silently dropped.
 */
import { missHint } from "../faults/index.ts";

/** Parsed arguments: positionals in order, flags by name. */
export interface Args {
	positionals: string[];
	flags: Map<string, string | true>;
}

/**
 * The flags a command takes: `true` for a value-taking flag, `false` for a switch, `"optional"` for a flag
 * whose value may be left out (`--reuse` alone is `--reuse last`).
 */
export type FlagSpec = Record<string, boolean | "optional">;

/**
 * The words an optional value takes from after its flag: `last`, a path, or a run's name (its stamp
 * first). Any other word is the command's own (`run explore --reuse what is this?` reads a question).
 */
const OPTIONAL_VALUE = /^(last|.*\/.*|\d{4}-\d\d-\d\d_.*)$/;

/** Parses `argv`; an error is a sentence for the user. */
export function parseArgs(
	argv: readonly string[],
	spec: FlagSpec,
): { ok: true; value: Args } | { ok: false; error: string } {
	const positionals: string[] = [];
	const flags = new Map<string, string | true>();
	for (let i = 0; i < argv.length; i++) {
		const arg = argv[i];
		if (arg === "--") {
			positionals.push(...argv.slice(i + 1));
			break;
		}
		// A flag's name has no spaces: `"--model opus -> @b"` is an argument (a chain), not an unknown flag.
		if (
			!arg.startsWith("--") ||
			arg === "--" ||
			/\s/.test(arg.slice(0, arg.includes("=") ? arg.indexOf("=") : undefined))
		) {
			positionals.push(arg);
			continue;
		}
		const eq = arg.indexOf("=");
		const name = arg.slice(2, eq < 0 ? undefined : eq);
		if (!(name in spec)) {
			const hint = missHint(
				`--${name}`,
				Object.keys(spec).map((k) => `--${k}`),
				{ what: "flags of this command", where: "`pi-flows --help` lists them", listUpTo: 20 },
			);
			return { ok: false, error: `unknown flag --${name}.${hint.text}` };
		}
		if (flags.has(name)) return { ok: false, error: `--${name} is given twice` };
		if (!spec[name]) {
			if (eq >= 0) return { ok: false, error: `--${name} takes no value` };
			flags.set(name, true);
			continue;
		}
		if (spec[name] === "optional") {
			if (eq >= 0) flags.set(name, arg.slice(eq + 1));
			else if (argv[i + 1] !== undefined && OPTIONAL_VALUE.test(argv[i + 1])) flags.set(name, argv[++i]);
			else flags.set(name, true);
			continue;
		}
		const value = eq >= 0 ? arg.slice(eq + 1) : argv[++i];
		if (value === undefined || (eq < 0 && value.startsWith("--")))
			return { ok: false, error: `--${name} needs a value` };
		flags.set(name, value);
	}
	return { ok: true, value: { positionals, flags } };
}

/** A flag's string value, or undefined. */
export function flag(args: Args, name: string): string | undefined {
	const v = args.flags.get(name);
	return typeof v === "string" ? v : undefined;
}
