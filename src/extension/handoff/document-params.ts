/**
 * The document fields `finish` and `checkpoint` share, as TypeBox parameters, and the step from a tool
 * call's arguments to a {@link HandoffDocument}. The model fills a typed schema; nothing is summarised
 * by another model call.
 */
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { type TSchema, Type } from "typebox";
import type { HandoffAuthor, HandoffDocument, HandoffStatus } from "../../handoff/index.ts";

/**
 * A string from a fixed list, as `{ type: "string", enum }`: the shape every provider accepts (pi-ai's
 * `StringEnum` emits the same, but its schema type does not carry the static type through `Type.Object`).
 */
export function stringChoice<const T extends readonly string[]>(values: T, description: string) {
	return Type.Unsafe<T[number]>({ type: "string", enum: [...values], description });
}

/** The parameters both tools take besides `status` (and checkpoint's `reset`). */
export function documentParameters(wording: { summary: string; next_task: string }) {
	return {
		summary: Type.String({ description: wording.summary }),
		decisions: Type.Optional(
			Type.Array(Type.String({ description: "One decision and its reason." }), {
				description: "Key decisions made and why, one line each.",
			}),
		),
		artifacts: Type.Optional(
			Type.Array(Type.String({ description: "A path relative to the project root." }), {
				description: "Paths of the files created or changed.",
			}),
		),
		next_task: Type.Optional(Type.String({ description: wording.next_task })),
		blocked: Type.Optional(
			Type.String({ description: "What needs a human, or what is risky or unresolved. Leave out when nothing is." }),
		),
	} satisfies Record<string, TSchema>;
}

/** The shared fields as the tools receive them. */
export interface DocumentArguments {
	summary: string;
	decisions?: string[];
	artifacts?: string[];
	next_task?: string;
	blocked?: string;
}

/** Builds the document; blank optional text counts as absent, so "" cannot pose as a next task. */
export function documentFrom(
	args: DocumentArguments,
	status: HandoffStatus,
	by: HandoffAuthor,
	ctx: ExtensionContext,
	now: Date,
): HandoffDocument {
	const doc: HandoffDocument = {
		status,
		summary: args.summary,
		decisions: args.decisions ?? [],
		artifacts: args.artifacts ?? [],
		writtenAt: now.toISOString(),
		by,
	};
	if (args.next_task?.trim()) doc.next_task = args.next_task;
	if (args.blocked?.trim()) doc.blocked = args.blocked;
	const session = ctx.sessionManager.getSessionFile();
	if (session) doc.session = session;
	const usage = ctx.getContextUsage();
	if (usage && usage.tokens != null && usage.contextWindow > 0) doc.contextAtWrite = usage.tokens / usage.contextWindow;
	return doc;
}
