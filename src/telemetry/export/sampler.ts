/**
 * `OTEL_TRACES_SAMPLER` and `OTEL_TRACES_SAMPLER_ARG` as the OpenTelemetry environment specification
 * names them. The trace SDK this build uses (`@opentelemetry/sdk-trace` 3) takes a sampler object and
 * reads no environment itself, so the names are read here.
 *
 *   parentbased_traceidratio + 0.25   → a quarter of new runs sampled; a worker's item follows its run
 */
import {
	AlwaysOffSampler,
	AlwaysOnSampler,
	ParentBasedSampler,
	type Sampler,
	TraceIdRatioBasedSampler,
} from "@opentelemetry/sdk-trace";

type Env = Readonly<Record<string, string | undefined>>;

/** The sampler the environment names (default `parentbased_always_on`), or why it cannot be read. */
export function samplerFromEnv(env: Env): { sampler: Sampler; note?: string } {
	const name = (env.OTEL_TRACES_SAMPLER ?? "parentbased_always_on").trim().toLowerCase();
	const arg = env.OTEL_TRACES_SAMPLER_ARG?.trim();
	const ratio = (): { value: number; note?: string } => {
		if (arg === undefined || arg === "") return { value: 1 };
		const n = Number(arg);
		if (Number.isFinite(n) && n >= 0 && n <= 1) return { value: n };
		return { value: 1, note: `OTEL_TRACES_SAMPLER_ARG \`${arg}\` is not a ratio from 0 to 1; 1 is used` };
	};
	switch (name) {
		case "always_on":
			return { sampler: new AlwaysOnSampler() };
		case "always_off":
			return { sampler: new AlwaysOffSampler() };
		case "traceidratio": {
			const r = ratio();
			return { sampler: new TraceIdRatioBasedSampler(r.value), ...(r.note ? { note: r.note } : {}) };
		}
		case "parentbased_always_on":
			return { sampler: new ParentBasedSampler({ root: new AlwaysOnSampler() }) };
		case "parentbased_always_off":
			return { sampler: new ParentBasedSampler({ root: new AlwaysOffSampler() }) };
		case "parentbased_traceidratio": {
			const r = ratio();
			return {
				sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(r.value) }),
				...(r.note ? { note: r.note } : {}),
			};
		}
		default:
			return {
				sampler: new ParentBasedSampler({ root: new AlwaysOnSampler() }),
				note: `OTEL_TRACES_SAMPLER \`${name}\` is not one pi-flows knows; parentbased_always_on is used`,
			};
	}
}
