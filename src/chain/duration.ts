/**
 * Durations in chain flags are the flow files' durations (grammar/duration.ohm): one syntax across the
 * product, parsed and printed in one place.
 */
export { durationLength, formatDuration, MAX_DURATION_MS, parseDuration } from "../language/syntax/index.ts";
