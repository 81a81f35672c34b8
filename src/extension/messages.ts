/**
 * What pi-flows puts in the conversation. A run's answer is a custom message the model reads on its next
 * turn but that triggers none (the person decides what happens next). A note (`/step`'s reads and
 * results, `/flows <name>`'s plan) is drawn for the person and kept out of the model's context by the
 * `context` hook, so walking a flow by hand never fills the model's window with it.
 */
import { redactJson, redactText } from "../secrets/index.ts";
import { type ExtensionAPI, type ExtensionContext, getMarkdownTheme } from "@earendil-works/pi-coding-agent";
import { Container, Markdown, Text } from "@earendil-works/pi-tui";

/** A run's answer: in the model's context. */
export const RESULT_MESSAGE = "pi-flows";
/** A note for the person: drawn, never in the model's context. */
export const NOTE_MESSAGE = "pi-flows-note";

/** What a result message keeps beside its text. */
export interface ResultDetails {
	flow: string;
	ok: boolean;
	runDir: string;
	/** The live view's last frame, drawn when the message is expanded. */
	frame: string[];
	failedAt?: string;
	error?: string;
	stopped?: string;
}

/** Posts a run's answer without starting a turn (delivered with the next one when pi is busy). */
export function postResult(
	pi: ExtensionAPI,
	ctx: Pick<ExtensionContext, "isIdle">,
	content: string,
	details: ResultDetails,
): void {
	// The session file is a record too: a key a provider echoed in a failed turn never reaches it.
	pi.sendMessage(
		{ customType: RESULT_MESSAGE, content: redactText(content), display: true, details: redactJson(details) },
		ctx.isIdle() ? { triggerTurn: false } : { triggerTurn: false, deliverAs: "nextTurn" },
	);
}

/** Posts a note for the person; the `context` hook keeps it from the model. */
export function postNote(
	pi: ExtensionAPI,
	ctx: Pick<ExtensionContext, "isIdle">,
	content: string,
	details: Record<string, unknown> = {},
): void {
	pi.sendMessage(
		{ customType: NOTE_MESSAGE, content: redactText(content), display: true, details: redactJson(details) },
		ctx.isIdle() ? { triggerTurn: false } : { triggerTurn: false, deliverAs: "nextTurn" },
	);
}

/** Registers how both kinds are drawn, and keeps notes out of every request's context. */
export function registerMessages(pi: ExtensionAPI): void {
	pi.on("context", (event) => {
		const kept = event.messages.filter(
			(m) =>
				!(
					(m as { role?: string; customType?: string }).role === "custom" &&
					(m as { customType?: string }).customType === NOTE_MESSAGE
				),
		);
		return kept.length === event.messages.length ? undefined : { messages: kept };
	});
	pi.registerMessageRenderer<ResultDetails>(RESULT_MESSAGE, (message, { expanded }, theme) => {
		const box = new Container();
		box.addChild(new Markdown(textOf(message.content), 1, 0, getMarkdownTheme()));
		if (expanded && message.details?.frame.length)
			box.addChild(new Text(theme.fg("dim", message.details.frame.join("\n")), 1, 0));
		return box;
	});
	pi.registerMessageRenderer(NOTE_MESSAGE, (message, _options, theme) => {
		const box = new Container();
		box.addChild(new Markdown(textOf(message.content), 1, 0, getMarkdownTheme()));
		box.addChild(new Text(theme.fg("dim", "outside the conversation: the model does not see this"), 1, 0));
		return box;
	});
}

function textOf(content: unknown): string {
	if (typeof content === "string") return content;
	if (!Array.isArray(content)) return "";
	return content.map((c: { type?: string; text?: string }) => (c.type === "text" ? (c.text ?? "") : "")).join("");
}

/** Tells the person something: a notification with a UI, stderr without (pi keeps stdout for the answer). */
export function say(
	ctx: Pick<ExtensionContext, "hasUI" | "ui">,
	text: string,
	level: "info" | "warning" | "error" = "info",
): void {
	const shown = redactText(text);
	if (ctx.hasUI) {
		ctx.ui.notify(shown, level);
		return;
	}
	process.stderr.write(`${shown}\n`);
}
