/** Flow, agent and script texts shared by the extension tests. */

/** An agent with no tools: it only answers. */
export function agent(name: string, tools = ""): string {
	return `---\nname: ${name}\ndescription: ${name} for tests\ntools: ${tools}\n---\nYou are ${name}. Answer briefly.\n`;
}

/** A flow of agent nodes in sequence, each reading the input and the node before it. */
export function sequence(name: string, nodes: { id: string; agent: string }[], extra = ""): string {
	const yaml = nodes
		.map((n, i) => `  - id: ${n.id}\n    agent: ${n.agent}\n    reads: [input${i > 0 ? `, ${nodes[i - 1].id}` : ""}]`)
		.join("\n");
	const body = nodes.map((n) => `## ${n.id}\n\nDo your part for the request under \`input\`.\n`).join("\n");
	return `---\nname: ${name}\ndescription: ${name}, a test flow\ninput: string\n${extra}nodes:\n${yaml}\n---\n\n${body}`;
}
