/**
 * `pi-flows serve`: watch and steer runs from a browser. A local server (loopback and a one-time token
 * by default) shows every run `pi-flows report` could show, live from its journal and events, and acts
 * on it (answer, stop, resume) through the code the CLI uses. See docs/web.md.
 */
export { type Served, type ServeOptions, startServer } from "./server.ts";
export { openDbos } from "./dbos-source.ts";
export { type RunView, viewOf } from "./view.ts";
