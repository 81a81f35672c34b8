/**
 * The closed word lists of the language: which keys a flow takes, and which words an id may not be
 * (conditions read ids, so ids follow CEL's identifier rules and avoid its reserved words). The keys of
 * each node kind are its module's (`kinds/`); the registry derives the tables of kind keys from them.
 */
import { RESERVED_WORDS as CEL_RESERVED } from "../syntax/index.ts";

/** Keys of the frontmatter. */
export const FLOW_KEYS = [
	"name",
	"description",
	"input",
	"model",
	"timeout",
	"nodes",
	"chain",
	"budget",
	"handoff",
	"transport",
] as const;

/** Words an address starts with or selects; an id may not be one. */
export const ADDRESS_WORDS = [
	"input",
	"item",
	"diff",
	"output",
	"ok",
	"error",
	"previous",
	"carry",
	"ledger",
	"handoff",
];

/** CEL's reserved words (the expression grammar's list). */
export const RESERVED_WORDS: readonly string[] = CEL_RESERVED;

/** An id a condition can read. */
export const ID_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Thinking levels pi knows. */
export const THINKING_LEVELS = ["off", "minimal", "low", "medium", "high", "xhigh", "max"];
