/**
 * A real LSP client for the tests: `pi-flows lsp` spawned as an editor would spawn it, in a temp project with
 * its own pi agent dir, spoken to over stdio with JSON-RPC. What the tests see is what an editor sees.
 */
import { cliBin } from "../helpers/built-cli.ts";
import { type ChildProcess, spawn } from "node:child_process";
import { pathToFileURL } from "node:url";
import {
	type CompletionItem,
	CompletionRequest,
	createProtocolConnection,
	DefinitionRequest,
	DidChangeTextDocumentNotification,
	DidChangeWatchedFilesNotification,
	DidCloseTextDocumentNotification,
	DidOpenTextDocumentNotification,
	ExitNotification,
	FileChangeType,
	type FileEvent,
	HoverRequest,
	type Hover,
	InitializedNotification,
	type InitializeResult,
	InitializeRequest,
	type Location,
	type ProtocolConnection,
	PublishDiagnosticsNotification,
	type PublishDiagnosticsParams,
	ShutdownRequest,
	StreamMessageReader,
	StreamMessageWriter,
} from "vscode-languageserver-protocol/node";
import type { TempProject } from "../helpers/project.ts";

/** A connected client and the server process behind it. */
export interface LspClient {
	initialized: InitializeResult;
	open(file: string, text: string): string;
	change(uri: string, version: number, text: string): void;
	/** Closes every open document and forgets what was published for it, so the next test starts clean. */
	closeAll(): void;
	/** Every publication for `uri` so far. */
	publications(uri: string): PublishDiagnosticsParams[];
	/** The first publication for `uri` at `version` (resolves at once if it already came). */
	diagnostics(uri: string, version: number): Promise<PublishDiagnosticsParams>;
	/** The next publication for `uri`, whatever its version. */
	nextDiagnostics(uri: string): Promise<PublishDiagnosticsParams>;
	/** Tells the server files changed on disk, as a client with a file watcher does. */
	filesChanged(files: string[]): void;
	completion(uri: string, line: number, character: number): Promise<CompletionItem[]>;
	hover(uri: string, line: number, character: number): Promise<Hover | null>;
	definition(uri: string, line: number, character: number): Promise<Location | null>;
	/** shutdown, then exit; resolves to the server's exit code. */
	stop(): Promise<number | null>;
}

/** Spawns the server in `project` (by default as `main.ts lsp --stdio`) and initializes it. */
export async function startClient(project: TempProject, argv = [cliBin(), "lsp", "--stdio"]): Promise<LspClient> {
	const child: ChildProcess = spawn(process.execPath, argv, {
		cwd: project.cwd,
		env: project.env,
		stdio: ["pipe", "pipe", "inherit"],
	});
	const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
	const connection: ProtocolConnection = createProtocolConnection(
		new StreamMessageReader(child.stdout as NodeJS.ReadableStream),
		new StreamMessageWriter(child.stdin as NodeJS.WritableStream),
	);
	const received: PublishDiagnosticsParams[] = [];
	const waiting: { uri: string; version?: number; resolve: (p: PublishDiagnosticsParams) => void }[] = [];
	connection.onNotification(PublishDiagnosticsNotification.type, (params) => {
		received.push(params);
		for (const w of waiting.filter(
			(x) => x.uri === params.uri && (x.version === undefined || x.version === params.version),
		)) {
			waiting.splice(waiting.indexOf(w), 1);
			w.resolve(params);
		}
	});
	connection.listen();
	const initialized = await connection.sendRequest(InitializeRequest.type, {
		processId: process.pid,
		rootUri: pathToFileURL(project.cwd).href,
		capabilities: {},
		workspaceFolders: null,
	});
	await connection.sendNotification(InitializedNotification.type, {});
	const open = new Set<string>();
	const position = (uri: string, line: number, character: number) => ({
		textDocument: { uri },
		position: { line, character },
	});
	return {
		initialized,
		open(file, text) {
			const uri = pathToFileURL(file).href;
			open.add(uri);
			void connection.sendNotification(DidOpenTextDocumentNotification.type, {
				textDocument: { uri, languageId: "markdown", version: 1, text },
			});
			return uri;
		},
		change(uri, version, text) {
			void connection.sendNotification(DidChangeTextDocumentNotification.type, {
				textDocument: { uri, version },
				contentChanges: [{ text }],
			});
		},
		closeAll() {
			for (const uri of open)
				void connection.sendNotification(DidCloseTextDocumentNotification.type, { textDocument: { uri } });
			received.splice(0, received.length, ...received.filter((p) => !open.has(p.uri)));
			open.clear();
		},
		publications: (uri) => received.filter((p) => p.uri === uri),
		diagnostics(uri, version) {
			const already = received.find((p) => p.uri === uri && p.version === version);
			if (already) return Promise.resolve(already);
			return new Promise((resolve) => waiting.push({ uri, version, resolve }));
		},
		nextDiagnostics: (uri) => new Promise((resolve) => waiting.push({ uri, resolve })),
		filesChanged(files) {
			const changes: FileEvent[] = files.map((f) => ({ uri: pathToFileURL(f).href, type: FileChangeType.Created }));
			void connection.sendNotification(DidChangeWatchedFilesNotification.type, { changes });
		},
		async completion(uri, line, character) {
			const result = await connection.sendRequest(CompletionRequest.type, position(uri, line, character));
			return Array.isArray(result) ? result : (result?.items ?? []);
		},
		hover: (uri, line, character) => connection.sendRequest(HoverRequest.type, position(uri, line, character)),
		async definition(uri, line, character) {
			const result = await connection.sendRequest(DefinitionRequest.type, position(uri, line, character));
			return Array.isArray(result) ? ((result[0] as Location | undefined) ?? null) : result;
		},
		async stop() {
			await connection.sendRequest(ShutdownRequest.type);
			await connection.sendNotification(ExitNotification.type);
			const code = await exited;
			connection.dispose();
			return code;
		},
	};
}

/** The 0-based line and column of a UTF-16 offset of `text`. */
export function positionAt(text: string, offset: number): { line: number; character: number } {
	const before = text.slice(0, offset).split("\n");
	return { line: before.length - 1, character: before[before.length - 1].length };
}

/** The 0-based line and column of the first `needle` in `text` (plus `offset` characters into it). */
export function find(text: string, needle: string, offset = 0): { line: number; character: number } {
	const at = text.indexOf(needle);
	if (at < 0) throw new Error(`not in the text: ${needle}`);
	return positionAt(text, at + offset);
}
