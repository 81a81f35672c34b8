/**
 * Just enough PNG decoding to judge a screenshot: the size from IHDR, and the pixels (8-bit RGB or RGBA,
 * not interlaced: what Chromium writes) from the IDAT chunks, inflated and unfiltered.
 */
import { inflateSync } from "node:zlib";

/** A decoded screenshot: its size, and its pixels as RGB (alpha is dropped: the page is opaque). */
export interface Png {
	width: number;
	height: number;
	/** RGB triples, row by row. */
	rgb(x: number, y: number): [number, number, number];
}

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Decodes a PNG file; throws on the formats Chromium does not write, rather than misreading them. */
export function readPng(file: Buffer): Png {
	if (!file.subarray(0, 8).equals(SIGNATURE)) throw new Error("not a PNG");
	let at = 8;
	let width = 0;
	let height = 0;
	let channels = 0;
	const idat: Buffer[] = [];
	while (at < file.length) {
		const len = file.readUInt32BE(at);
		const type = file.toString("latin1", at + 4, at + 8);
		const data = file.subarray(at + 8, at + 8 + len);
		if (type === "IHDR") {
			width = data.readUInt32BE(0);
			height = data.readUInt32BE(4);
			const depth = data[8];
			const color = data[9];
			if (depth !== 8 || (color !== 2 && color !== 6) || data[12] !== 0)
				throw new Error(`unsupported PNG: depth ${depth}, colour type ${color}, interlace ${data[12]}`);
			channels = color === 6 ? 4 : 3;
		} else if (type === "IDAT") idat.push(data);
		else if (type === "IEND") break;
		at += 12 + len;
	}
	const raw = inflateSync(Buffer.concat(idat));
	const stride = width * channels;
	const px = Buffer.alloc(height * stride);
	for (let y = 0; y < height; y++) {
		const filter = raw[y * (stride + 1)];
		const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
		for (let x = 0; x < stride; x++) {
			const a = x >= channels ? px[y * stride + x - channels] : 0;
			const b = y > 0 ? px[(y - 1) * stride + x] : 0;
			const c = x >= channels && y > 0 ? px[(y - 1) * stride + x - channels] : 0;
			let v = line[x];
			if (filter === 1) v += a;
			else if (filter === 2) v += b;
			else if (filter === 3) v += (a + b) >> 1;
			else if (filter === 4) {
				const p = a + b - c;
				const pa = Math.abs(p - a);
				const pb = Math.abs(p - b);
				const pc = Math.abs(p - c);
				v += pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
			}
			px[y * stride + x] = v & 0xff;
		}
	}
	return {
		width,
		height,
		rgb: (x, y) => {
			const i = y * stride + x * channels;
			return [px[i], px[i + 1], px[i + 2]];
		},
	};
}

/**
 * How many pixels are within `tolerance` of `hex` on every channel: a tolerance, because font smoothing and
 * colour management may shift a fill by a unit or two.
 */
export function countNear(png: Png, hex: string, tolerance = 10): number {
	const want = [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16));
	let n = 0;
	for (let y = 0; y < png.height; y++) {
		for (let x = 0; x < png.width; x++) {
			const got = png.rgb(x, y);
			if (got.every((v, i) => Math.abs(v - want[i]) <= tolerance)) n++;
		}
	}
	return n;
}
