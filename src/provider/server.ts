/**
 * A model provider at the wire, for tests and for users: an HTTP server on 127.0.0.1 (port 0, no service)
 * that speaks OpenAI chat-completions and Anthropic messages, streaming, and answers each request as a
 * script says: text, tool calls, usage with cache reads and writes, or the faults real providers have
 * (429 with `retry-after`, 529, 5xx, a stream cut mid-answer, a stall, malformed events). pi reaches it
 * through its own provider code, from a `models.json` provider whose `baseUrl` is the server's.
 *
 *   const server = await startProviderServer({ script: (req) => ({ text: `ok ${req.lastUser}` }) });
 *   writeFileSync(join(agentDir, "models.json"), JSON.stringify(server.modelsJson()));
 *   ... run; then server.billed() is what the provider would charge ...
 *
 * Usage is the server's own count (a token per 4 bytes) with prompt caching simulated: the longest prefix
 * a request shares with an earlier answered one is read from the cache, and with Anthropic's
 * `cache_control` the rest is written to it. The ledger holds exactly what each response reported.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import {
	type Answer,
	type Fault,
	isFault,
	type LedgerEntry,
	noTokens,
	type Reply,
	type Responder,
	type Tokens,
	type WireRequest,
} from "./types.ts";
import {
	anthropicFrames,
	errorBody,
	type Frame,
	openAIFrames,
	readAnthropic,
	readOpenAI,
	type StreamPlan,
	tokensOf,
} from "./wire.ts";

/** Options of a server. */
export interface ProviderServerOptions {
	/** Answers each request. Default: the text `ok`. */
	script?: Responder;
	/** Requests beyond this many at once are answered 429 (outcome `limited`). Default: no limit. */
	maxConcurrent?: number;
	/** `retry-after` (seconds) of a `limited` 429. Default 1. */
	limitRetryAfter?: number;
	/** Waits this long before each response's first byte. Default 0. */
	latencyMs?: number;
	/** Milliseconds between stream frames. Default 0. */
	frameMs?: number;
	/** Simulates prompt caching (see the file comment). Default true. */
	cache?: boolean;
}

/** A running server. */
export interface ProviderServer {
	/** `http://127.0.0.1:<port>`. */
	readonly url: string;
	/** Every request read, in arrival order. */
	readonly requests: WireRequest[];
	/** How every request ended and what it billed, in order of completion. */
	readonly ledger: LedgerEntry[];
	/** The sum of what every response reported, and its cost at these prices (per million tokens). */
	billed(prices?: Partial<Tokens>): Tokens & { cost: number; requests: number };
	/** The most requests that were in flight at once. */
	maxActive(): number;
	/**
	 * A `models.json` naming this server as two providers: `<name>` (OpenAI chat-completions, at `/v1`) and
	 * `<name>-anthropic` (Anthropic messages), each with one model `id` at these prices.
	 */
	modelsJson(options?: {
		name?: string;
		id?: string;
		cost?: Partial<Tokens>;
		contextWindow?: number;
	}): Record<string, unknown>;
	/** Stops the server, dropping stalled streams. Idempotent. */
	close(): Promise<void>;
}

/** Starts a server on 127.0.0.1 at a free port. */
export async function startProviderServer(options: ProviderServerOptions = {}): Promise<ProviderServer> {
	const script: Responder = options.script ?? (() => ({ text: "ok" }));
	const requests: WireRequest[] = [];
	const ledger: LedgerEntry[] = [];
	const seen: string[] = [];
	const sockets = new Set<Socket>();
	let active = 0;
	let peak = 0;
	let count = 0;

	const handle = async (req: IncomingMessage, res: ServerResponse) => {
		const path = (req.url ?? "").split("?")[0];
		const api = path.endsWith("/chat/completions") ? "openai" : path.endsWith("/messages") ? "anthropic" : undefined;
		if (req.method !== "POST" || !api) {
			res
				.writeHead(404, { "content-type": "application/json" })
				.end(JSON.stringify({ error: { message: `no route ${req.method} ${path}` } }));
			return;
		}
		let body: Record<string, unknown>;
		try {
			body = JSON.parse(await readBody(req)) as Record<string, unknown>;
		} catch {
			res
				.writeHead(400, { "content-type": "application/json" })
				.end(JSON.stringify({ error: { message: "the body is not JSON" } }));
			return;
		}
		const request = api === "openai" ? readOpenAI(body, ++count) : readAnthropic(body, ++count);
		requests.push(request);
		const entry: LedgerEntry = {
			index: request.index,
			api,
			model: request.model,
			status: 200,
			outcome: "ok",
			billed: noTokens(),
			tools: [],
		};
		if (options.maxConcurrent !== undefined && active >= options.maxConcurrent) {
			entry.status = 429;
			entry.outcome = "limited";
			ledger.push(entry);
			sendError(res, api, 429, options.limitRetryAfter ?? 1);
			return;
		}
		active++;
		peak = Math.max(peak, active);
		try {
			let answer: Answer;
			try {
				answer = await script(request);
			} catch (error) {
				answer = { fault: "500", reply: { text: `script error: ${(error as Error).message}` } };
			}
			const delay = (options.latencyMs ?? 0) + (isFault(answer) ? 0 : (answer.delayMs ?? 0));
			if (delay > 0) await sleep(delay);
			await respond(request, answer, res, entry);
		} finally {
			active--;
			ledger.push(entry);
		}
	};

	const respond = async (request: WireRequest, answer: Answer, res: ServerResponse, entry: LedgerEntry) => {
		const fault: Fault | undefined = isFault(answer) ? answer : undefined;
		if (fault && /^\d+$/.test(fault.fault)) {
			entry.status = Number(fault.fault);
			entry.outcome = fault.fault;
			sendError(res, request.api, entry.status, fault.retryAfter);
			return;
		}
		if (fault?.fault === "reset") {
			entry.status = 0;
			entry.outcome = "reset";
			res.socket?.destroy();
			return;
		}
		const reply: Reply = fault ? (fault.reply ?? { text: "This answer will not arrive whole." }) : (answer as Reply);
		const plan = planOf(request, reply);
		entry.tools = plan.tools.map((t) => t.name);
		const frames = request.api === "openai" ? openAIFrames(plan) : anthropicFrames(plan);
		res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
		let upTo = frames.length;
		if (fault?.fault === "cut") {
			const after = fault.afterChars ?? Math.floor(plan.text.length / 2);
			upTo = Math.max(1, frames.findIndex((f) => f.textSoFar >= after && f.textSoFar > 0) + 1 || 2);
			upTo = Math.min(upTo, frames.length - 2);
		} else if (fault?.fault === "stall") upTo = 1;
		for (let i = 0; i < upTo; i++) {
			if (i === 1 && fault?.fault === "malformed") {
				res.write(`data: {"choices":[{"delta":{"content":"bro\n\n`);
				bill(entry.billed, frames[0]);
				res.end();
				entry.outcome = "malformed";
				return;
			}
			if (!res.writable) return;
			res.write(`${frames[i].data.startsWith("event:") ? frames[i].data : `data: ${frames[i].data}`}\n\n`);
			bill(entry.billed, frames[i]);
			if (options.frameMs) await sleep(options.frameMs);
		}
		if (fault?.fault === "cut") {
			entry.outcome = "cut";
			// What was written reaches the client before the drop, so the ledger bills what the client read.
			await new Promise<void>((resolve) => res.write("", () => resolve()));
			await sleep(30);
			res.socket?.destroy();
			return;
		}
		if (fault?.fault === "stall") {
			entry.outcome = "stall";
			// Held open until the client gives up (or the server closes): the socket closing ends it.
			await new Promise<void>((resolve) => res.once("close", () => resolve()));
			return;
		}
		res.end();
		if (options.cache !== false) seen.push(request.prompt);
	};

	const planOf = (request: WireRequest, reply: Reply): StreamPlan => {
		const tools = (reply.tools ?? []).map((t, i) => ({
			id: t.id ?? (request.api === "anthropic" ? `toolu_${request.index}_${i}` : `call_${request.index}_${i}`),
			name: t.name,
			args: typeof t.args === "string" ? t.args : JSON.stringify(t.args ?? {}),
		}));
		const text = reply.text ?? (tools.length ? "" : "ok");
		const promptTokens = tokensOf(request.prompt);
		const cached =
			options.cache === false ? 0 : Math.min(promptTokens, Math.floor(longestPrefix(request.prompt, seen) / 4));
		const writes = request.api === "anthropic" && JSON.stringify(request.body).includes('"cache_control"');
		const computed: Tokens = {
			input: writes ? 0 : promptTokens - cached,
			cacheRead: cached,
			cacheWrite: writes ? promptTokens - cached : 0,
			output: tokensOf(text + tools.map((t) => t.name + t.args).join("")),
		};
		return {
			id: `${request.api === "anthropic" ? "msg" : "chatcmpl"}_${request.index}`,
			model: request.model,
			text,
			tools,
			usage: { ...computed, ...reply.usage },
		};
	};

	const server: Server = createServer((req, res) => {
		handle(req, res).catch((error) => {
			if (!res.headersSent) res.writeHead(500).end(String(error));
			else res.destroy();
		});
	});
	server.on("connection", (s) => {
		sockets.add(s);
		s.once("close", () => sockets.delete(s));
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	let closed: Promise<void> | undefined;

	return {
		url,
		requests,
		ledger,
		maxActive: () => peak,
		billed(prices = {}) {
			const sum = { ...noTokens(), cost: 0, requests: 0 };
			for (const e of ledger) {
				sum.input += e.billed.input;
				sum.output += e.billed.output;
				sum.cacheRead += e.billed.cacheRead;
				sum.cacheWrite += e.billed.cacheWrite;
				if (e.billed.input + e.billed.output + e.billed.cacheRead + e.billed.cacheWrite > 0) sum.requests++;
			}
			sum.cost = costOf(sum, prices);
			return sum;
		},
		modelsJson({ name = "wire", id = "wire-1", cost = {}, contextWindow = 128000 } = {}) {
			const model = {
				id,
				name: id,
				reasoning: false,
				input: ["text"],
				contextWindow,
				maxTokens: 4096,
				cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, ...cost },
			};
			return {
				providers: {
					[name]: { baseUrl: `${url}/v1`, api: "openai-completions", apiKey: "wire-key", models: [model] },
					[`${name}-anthropic`]: { baseUrl: url, api: "anthropic-messages", apiKey: "wire-key", models: [model] },
				},
			};
		},
		close() {
			closed ??= new Promise<void>((resolve) => {
				for (const s of sockets) s.destroy();
				server.close(() => resolve());
			});
			return closed;
		},
	};
}

/** Cost at prices per million tokens, the way pi prices a model. */
export function costOf(t: Tokens, prices: Partial<Tokens>): number {
	return (
		((prices.input ?? 0) * t.input +
			(prices.output ?? 0) * t.output +
			(prices.cacheRead ?? 0) * t.cacheRead +
			(prices.cacheWrite ?? 0) * t.cacheWrite) /
		1_000_000
	);
}

function bill(into: Tokens, frame: Frame | undefined): void {
	if (frame?.bills) Object.assign(into, frame.bills);
}

function sendError(res: ServerResponse, api: WireRequest["api"], status: number, retryAfter?: number): void {
	const headers: Record<string, string> = { "content-type": "application/json" };
	if (retryAfter !== undefined) headers["retry-after"] = String(retryAfter);
	// Tells pi's SDK layer not to retry on its own: retries are the runtime's, and visible.
	headers["x-should-retry"] = "false";
	res.writeHead(status, headers).end(errorBody(api, status));
}

/** Characters `prompt` shares from its start with the closest of `earlier`. */
function longestPrefix(prompt: string, earlier: readonly string[]): number {
	let best = 0;
	for (const e of earlier) {
		const n = Math.min(e.length, prompt.length);
		if (n <= best) continue;
		let i = 0;
		while (i < n && e.charCodeAt(i) === prompt.charCodeAt(i)) i++;
		best = Math.max(best, i);
	}
	return best;
}

function readBody(req: IncomingMessage): Promise<string> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		req.on("data", (c: Buffer) => chunks.push(c));
		req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
		req.on("error", reject);
	});
}

function sleep(ms: number): Promise<void> {
	return new Promise((resolve) => setTimeout(resolve, ms));
}
