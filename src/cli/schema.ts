/**
 * `pi-flows schema`: the JSON Schema of a flow's frontmatter on stdout, for an editor's YAML support
 * (point `yaml.schemas` or a `# yaml-language-server: $schema=` comment at the saved file).
 */
import { LANGUAGE } from "../kinds/language.ts";
import { frontmatterSchema } from "../language/index.ts";
import type { Args } from "./args.ts";
import type { Io } from "./io.ts";

/** Runs `schema`: it takes no argument, so one given is refused rather than silently ignored. */
export function schemaCommand(args: Args, io: Io): number {
	if (args.positionals.length > 0) {
		io.stderr("usage: pi-flows schema");
		return 2;
	}
	io.stdout(JSON.stringify(frontmatterSchema(LANGUAGE), null, 2));
	return 0;
}
