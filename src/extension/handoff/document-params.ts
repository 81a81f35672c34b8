/**
 * The shared contract's plain JSON Schema as the TypeBox type pi's `ToolDefinition` wants, and the step
 * from a call's arguments to a {@link HandoffDocument} with what only a pi session knows (its file, how
 * full its context is). The model fills a typed schema; nothing is summarised by another model call.
 */
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import {
	documentFromArguments,
	type HandoffAuthor,
	type HandoffDocument,
	type HandoffStatus,
	type HandoffToolArguments,
	type HandoffToolContract,
} from "../../handoff/index.ts";

/**
 * The contract's schema, unchanged (pi validates it as JSON Schema), typed for `ToolDefinition` as the
 * arguments `T` the tool receives.
 */
export function toolParameters<T extends HandoffToolArguments>(contract: HandoffToolContract) {
	return Type.Unsafe<T>(contract.parameters as Record<string, unknown>);
}

/** Builds the document, with the session file and the context used at writing time when pi knows them. */
export function documentFrom(
	args: HandoffToolArguments,
	status: HandoffStatus,
	by: HandoffAuthor,
	ctx: ExtensionContext,
	now: Date,
): HandoffDocument {
	const doc = documentFromArguments(args as unknown as Record<string, unknown>, status, by, now);
	const session = ctx.sessionManager.getSessionFile();
	if (session) doc.session = session;
	const usage = ctx.getContextUsage();
	if (usage && usage.tokens != null && usage.contextWindow > 0) doc.contextAtWrite = usage.tokens / usage.contextWindow;
	return doc;
}
