/**
 * Cutting output to a byte budget without splitting a character: a check's report keeps its last bytes
 * (the failure is at the end), a diff keeps its first (the files are in order). Both say how much went,
 * so a reader (person or model) never takes a cut text for the whole.
 */

/** Whether `byte` continues a UTF-8 sequence rather than starting one. */
function continues(byte: number): boolean {
	return (byte & 0xc0) === 0x80;
}

/**
 * Keeps the last `cap` bytes of a stream fed chunk by chunk, holding at most about twice that, so a
 * check that prints gigabytes costs a few kilobytes.
 */
export class ByteTail {
	private readonly cap: number;
	private chunks: Buffer[] = [];
	private held = 0;
	/** Every byte pushed, kept or not: the marker says how many were cut. */
	total = 0;

	constructor(cap: number) {
		this.cap = cap;
	}

	push(chunk: Buffer): void {
		this.chunks.push(chunk);
		this.held += chunk.length;
		this.total += chunk.length;
		if (this.held > this.cap * 2) {
			const kept = Buffer.concat(this.chunks).subarray(this.held - this.cap);
			this.chunks = [kept];
			this.held = kept.length;
		}
	}

	/**
	 * The tail as text, starting on a character boundary, led by `[… N bytes cut]` when anything was cut
	 * (N counts the bytes skipped to reach the boundary too).
	 */
	text(): string {
		let tail = Buffer.concat(this.chunks);
		if (tail.length > this.cap) tail = tail.subarray(tail.length - this.cap);
		let start = 0;
		while (start < tail.length && start < 3 && continues(tail[start])) start++;
		const cut = this.total - (tail.length - start);
		const body = tail.subarray(start).toString("utf8");
		return cut > 0 ? `[… ${cut} bytes cut]\n${body}` : body;
	}
}

/**
 * The first `max` bytes of `bytes` as text, ending on a character boundary, followed by a marker when
 * cut. `more` says the producer was stopped early, so the true size is unknown and the marker says so.
 */
export function headText(bytes: Buffer, max: number, what: string, more = false): string {
	if (bytes.length <= max && !more) return bytes.toString("utf8");
	let end = Math.min(max, bytes.length);
	// A cut before a continuation byte would split a character: move it back to that character's start.
	while (end > 0 && end < bytes.length && max - end < 3 && continues(bytes[end])) end--;
	const size = more ? `more than ${max}` : `${bytes.length}`;
	return `${bytes.subarray(0, end).toString("utf8")}\n[… ${what} cut at ${end} of ${size} bytes]\n`;
}
