/**
 * A strict little HTML reader for report tests: no HTML parser is a dependency, and the report is
 * generated, so it must be well formed. Every close tag must match its open tag (it throws otherwise),
 * text and attributes come back decoded, and `<style>` is taken raw.
 */

/** An element as the tests inspect it: attributes decoded, children in document order. */
export interface El {
	tag: string;
	attrs: Record<string, string>;
	children: (El | string)[];
}

const VOID = new Set(["meta", "br", "hr", "img", "input", "link", "area", "base", "col", "source", "wbr"]);
const RAW = new Set(["style", "script", "textarea", "title"]);

/** Decodes the entities the report writes, and numeric ones. */
export function decode(text: string): string {
	return text.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos);/gi, (_, e: string) => {
		const named: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };
		if (e[0] !== "#") return named[e.toLowerCase()];
		return String.fromCodePoint(e[1].toLowerCase() === "x" ? Number.parseInt(e.slice(2), 16) : Number(e.slice(1)));
	});
}

/** Parses a whole document into a root element holding its top-level nodes. */
export function parseHtml(html: string): El {
	const root: El = { tag: "#root", attrs: {}, children: [] };
	const stack: El[] = [root];
	let i = 0;
	const top = () => stack[stack.length - 1];
	while (i < html.length) {
		if (html.startsWith("<!--", i)) {
			i = html.indexOf("-->", i) + 3;
			continue;
		}
		if (html.startsWith("<!", i)) {
			i = html.indexOf(">", i) + 1;
			continue;
		}
		if (html.startsWith("</", i)) {
			const end = html.indexOf(">", i);
			const tag = html
				.slice(i + 2, end)
				.trim()
				.toLowerCase();
			const open = stack.pop();
			if (!open || open.tag !== tag) throw new Error(`</${tag}> at ${i} closes <${open?.tag}>`);
			i = end + 1;
			continue;
		}
		if (html[i] === "<") {
			const m = /^<([a-zA-Z][\w:-]*)((?:\s+[^\s=/>]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>]+))?)*)\s*(\/?)>/.exec(
				html.slice(i),
			);
			if (!m) throw new Error(`a bad tag at ${i}: ${html.slice(i, i + 60)}`);
			const el: El = { tag: m[1].toLowerCase(), attrs: {}, children: [] };
			for (const a of m[2].matchAll(/([^\s=/>]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?/g))
				el.attrs[a[1].toLowerCase()] = decode(a[2] ?? a[3] ?? a[4] ?? "");
			top().children.push(el);
			i += m[0].length;
			if (m[3] || VOID.has(el.tag)) continue;
			if (RAW.has(el.tag)) {
				const close = html.toLowerCase().indexOf(`</${el.tag}>`, i);
				if (close < 0) throw new Error(`<${el.tag}> is never closed`);
				el.children.push(el.tag === "title" ? decode(html.slice(i, close)) : html.slice(i, close));
				i = close + el.tag.length + 3;
				continue;
			}
			stack.push(el);
			continue;
		}
		const next = html.indexOf("<", i);
		const text = html.slice(i, next < 0 ? html.length : next);
		if (text) top().children.push(decode(text));
		i = next < 0 ? html.length : next;
	}
	if (stack.length !== 1) throw new Error(`unclosed: ${stack.map((e) => e.tag).join(" > ")}`);
	return root;
}

/** Every element under `el` (depth first) that `pick` accepts. */
export function all(el: El, pick: (e: El) => boolean): El[] {
	const out: El[] = [];
	const walk = (e: El) => {
		for (const c of e.children) {
			if (typeof c === "string") continue;
			if (pick(c)) out.push(c);
			walk(c);
		}
	};
	walk(el);
	return out;
}

/** Elements matching `tag.class1.class2` (either part optional). */
export function select(el: El, selector: string): El[] {
	const [tag, ...classes] = selector.split(".");
	return all(
		el,
		(e) => (!tag || e.tag === tag) && classes.every((c) => (e.attrs.class ?? "").split(/\s+/).includes(c)),
	);
}

/** The one element matching `selector`; throws when there is not exactly one. */
export function one(el: El, selector: string): El {
	const found = select(el, selector);
	if (found.length !== 1) throw new Error(`${found.length} elements match ${selector}`);
	return found[0];
}

/** The element's text, decoded, with `<title>` tooltips left out. */
export function text(el: El): string {
	return el.children.map((c) => (typeof c === "string" ? c : c.tag === "title" ? "" : text(c))).join("");
}
