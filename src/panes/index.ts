export { detectPaneBackend, herdrBackend, type PaneBackend, tmuxBackend } from "./backend.ts";
export { type PaneOptions, type PaneWatcher, paneWatcher } from "./watcher.ts";
