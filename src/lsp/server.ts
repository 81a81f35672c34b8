/**
 * The language server: diagnostics as you type from the checker itself, and completion, hover and go to
 * definition from the text around the cursor plus the last versions that built and checked. Streams and
 * environment come in as arguments so the command runs it on stdio and anything else can run it elsewhere.
 *
 *   didOpen .pi/flows/mine.md (agent: scuot)  →  publishDiagnostics [7:11–7:16 unknown-agent "no agent `scuot`. …"]
 */
import {
	type Connection,
	createConnection,
	ProposedFeatures,
	TextDocumentSyncKind,
	TextDocuments,
} from "vscode-languageserver/node";
import { TextDocument } from "vscode-languageserver-textdocument";
import { complete } from "./completion.ts";
import { definitionAt } from "./definition.ts";
import { toDiagnostic } from "./diagnostics.ts";
import { FlowDocuments, isFlowDocument } from "./documents.ts";
import { hoverAt } from "./hover.ts";
import { type ModelNames, openModelNames } from "./models.ts";

/** Where the server talks and what it reads. */
export interface ServerOptions {
	input: NodeJS.ReadableStream;
	output: NodeJS.WritableStream;
	/** For `PI_CODING_AGENT_DIR`: the user's agents and flows. */
	env: NodeJS.ProcessEnv;
	/** The project folder for documents that are not files. */
	cwd: string;
	/** How long typing must pause before a document is judged again. Default: 150 ms. */
	debounceMs?: number;
}

/** Characters after which an editor should ask again: a value starts, a list goes on, an address goes deeper. */
const TRIGGERS = [" ", ":", "[", ",", ".", '"', "'", "#"];

/** Starts a server on the given streams; the connection ends the process on `exit`, as LSP asks. */
export function startServer(options: ServerOptions): Connection {
	const connection = createConnection(ProposedFeatures.all, options.input, options.output);
	const documents = new TextDocuments(TextDocument);
	const flows = new FlowDocuments(options.env, options.cwd);
	const timers = new Map<string, NodeJS.Timeout>();
	const published = new Set<string>();
	const opened = new Set<string>();
	const debounce = options.debounceMs ?? 150;

	const publish = (document: TextDocument) => {
		timers.delete(document.uri);
		if (!isFlowDocument(document.uri, document.getText())) {
			// A document that stopped being a flow (its frontmatter was cut) keeps no stale errors.
			if (published.delete(document.uri)) void connection.sendDiagnostics({ uri: document.uri, diagnostics: [] });
			return;
		}
		try {
			const faults = flows.judge(document.uri, document.getText());
			published.add(document.uri);
			void connection.sendDiagnostics({
				uri: document.uri,
				version: document.version,
				diagnostics: [
					...faults.map((f) => toDiagnostic(f)),
					...flows.notes(document.uri).map((n) => toDiagnostic(n, "note")),
				],
			});
		} catch (error) {
			// The checker reports faults as data; a throw is a bug in it, which must not take the editor's server down.
			connection.console.error(
				`pi-flows: checking ${document.uri} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
			);
		}
	};

	connection.onInitialize(() => ({
		capabilities: {
			textDocumentSync: TextDocumentSyncKind.Incremental,
			completionProvider: { triggerCharacters: TRIGGERS },
			hoverProvider: true,
			definitionProvider: true,
		},
		serverInfo: { name: "pi-flows" },
	}));

	documents.onDidChangeContent(({ document }) => {
		const pending = timers.get(document.uri);
		if (pending) clearTimeout(pending);
		// The first version is judged at once: opening a file should show its faults without a pause.
		if (!opened.has(document.uri)) {
			opened.add(document.uri);
			return publish(document);
		}
		timers.set(
			document.uri,
			setTimeout(() => {
				// Judge the text as it is when typing pauses, not as it was when the timer was set.
				const latest = documents.get(document.uri);
				if (latest) publish(latest);
			}, debounce),
		);
	});
	documents.onDidClose(({ document }) => {
		clearTimeout(timers.get(document.uri));
		timers.delete(document.uri);
		opened.delete(document.uri);
		flows.close(document.uri);
		if (published.delete(document.uri)) void connection.sendDiagnostics({ uri: document.uri, diagnostics: [] });
	});

	/** The open flow document at a request's URI, or undefined for anything else. */
	const flowDocument = (uri: string): TextDocument | undefined => {
		const document = documents.get(uri);
		return document && isFlowDocument(uri, document.getText()) ? document : undefined;
	};
	const world = (uri: string, text: string) => {
		const flow = flows.flow(uri, text);
		const scopes = flows.scopes(uri);
		return {
			...(flow ? { flow } : {}),
			...(scopes ? { scopes } : {}),
			roster: flows.roster(uri),
			flows: () => flows.flows(uri),
		};
	};

	connection.onCompletion(({ textDocument, position }) => {
		const document = flowDocument(textDocument.uri);
		if (!document) return [];
		const text = document.getText();
		return complete(text, position.line, position.character, world(textDocument.uri, text));
	});
	// pi's resolver, for hover: an agent's `model: sonnet` shows what a run would take.
	let models: Promise<ModelNames | undefined> | undefined;
	const modelNames = () =>
		(models ??= openModelNames(options.cwd, options.env).catch((error: unknown) => {
			connection.console.error(
				`pi-flows: cannot open pi's models: ${error instanceof Error ? error.message : String(error)}`,
			);
			return undefined;
		}));
	// Opened while the editor sends its first documents, so the first hover does not wait for pi to load.
	connection.onInitialized(() => void modelNames());
	connection.onHover(async ({ textDocument, position }) => {
		const document = flowDocument(textDocument.uri);
		if (!document) return null;
		const text = document.getText();
		const checked = flows.checked(textDocument.uri);
		const names = await modelNames();
		return (
			hoverAt(text, position.line, position.character, {
				...world(textDocument.uri, text),
				...(checked ? { checked } : {}),
				...(names ? { models: names } : {}),
			}) ?? null
		);
	});
	connection.onDefinition(({ textDocument, position }) => {
		const document = flowDocument(textDocument.uri);
		if (!document) return null;
		const uri = textDocument.uri;
		const scopes = flows.scopes(uri);
		return (
			definitionAt(document.getText(), position.line, position.character, {
				uri,
				roster: flows.roster(uri),
				flows: () => flows.flows(uri),
				...(scopes ? { scopes } : {}),
			}) ?? null
		);
	});
	// An agent or a callee changed on disk: open flows that name it may check differently now.
	connection.onDidChangeWatchedFiles(() => {
		for (const document of documents.all()) publish(document);
	});
	connection.onShutdown(() => {
		for (const timer of timers.values()) clearTimeout(timer);
		timers.clear();
	});

	documents.listen(connection);
	connection.listen();
	return connection;
}
