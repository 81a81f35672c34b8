/**
 * The `subagent` tool's parameters. Every field is optional because the call's shape says what it does:
 * `agent` + `task` is one subagent, `tasks` several in parallel, `chain` steps in order, `flow` + `input`
 * a whole flow. Limits live in the descriptions and are checked in code, so a call past them is refused
 * in our words (with what to do instead) rather than by a schema error.
 */
import { type Static, Type } from "typebox";

/** Most tasks one parallel call may run. */
export const MAX_TASKS = 8;
/** Most subagents of one parallel call running at once. */
export const MAX_CONCURRENCY = 4;

const agentName = Type.String({ description: "The agent's name, as listed in this tool's description." });

/** The tool's parameters as a TypeBox (JSON) schema. */
export const subagentParameters = Type.Object({
	agent: Type.Optional(
		Type.String({ description: "Run one subagent: the agent's name. Give the whole job in `task`." }),
	),
	task: Type.Optional(
		Type.String({
			description:
				"With `agent`: the whole task (the subagent sees nothing else of this conversation). With a `chain` string: the first step's input.",
		}),
	),
	tasks: Type.Optional(
		Type.Array(
			Type.Object({
				agent: agentName,
				task: Type.String({ description: "The whole task of this subagent; it sees nothing of the others." }),
			}),
			{
				description: `Run several subagents in parallel, at most ${MAX_TASKS}; the answers come back in the order of the tasks.`,
			},
		),
	),
	concurrency: Type.Optional(
		Type.Integer({
			description: `With \`tasks\`: how many run at once, 1 to ${MAX_CONCURRENCY}. Default ${MAX_CONCURRENCY}.`,
		}),
	),
	chain: Type.Optional(
		Type.Union(
			[
				Type.String({
					description:
						'A chain in pi-flows syntax, e.g. "@scout -> @reviewer --model anthropic/claude-sonnet-4-5"; `task` is its input.',
				}),
				Type.Array(
					Type.Object({
						agent: agentName,
						task: Type.Optional(
							Type.String({
								description:
									"This step's instruction; the first step's is the chain's input. Later steps also get the previous step's output.",
							}),
						),
					}),
					{ description: "Steps in order; each step is handed the previous step's output." },
				),
			],
			{
				description: "Run steps one after another, each answering the previous one: a chain string or a list of steps.",
			},
		),
	),
	flow: Type.Optional(
		Type.String({ description: "Run a whole pi-flows flow by name (see /flows); give its input in `input`." }),
	),
	input: Type.Optional(
		Type.String({ description: "With `flow`: the flow's input; text, or JSON for a flow with a typed input." }),
	),
	model: Type.Optional(
		Type.String({
			description:
				"Put every subagent on this model (provider/id[:thinking]). Default: each agent's own, else this session's.",
		}),
	),
	timeout: Type.Optional(
		Type.String({
			description: "Bound on each subagent turn: 90s, 10m, 1h. Default: none for subagents, the flow's own for a flow.",
		}),
	),
});

/** A call's arguments, as pi has validated them against the schema. */
export type SubagentParams = Static<typeof subagentParameters>;
