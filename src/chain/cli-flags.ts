/**
 * The chain-wide flags `pi-flows chain` takes beside the chain, as pi-crew writes them
 * (`pi-flows chain "@a -> @b" --global-model sonnet --continue-on-error`): name → whether it takes a value.
 * A literal, not derived from `CHAIN_FLAGS`, because the CLI's flag table is read by `--help`, which must
 * not load the chain's value checkers (and the grammars behind them); test/chain/cli-flags.test.ts holds
 * the two together.
 */
export const CHAIN_CLI_FLAGS: Readonly<Record<string, boolean>> = {
	"global-model": true,
	"global-skill": true,
	"global-thinking": true,
	"budget-total": true,
	"budget-warning": true,
	retry: true,
	backoff: true,
	"max-history": true,
	"continue-on-error": false,
};
