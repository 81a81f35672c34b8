/**
 * Debian's Chromium as the browser tests and benches drive it (playwright-core over the DevTools
 * protocol, never a browser of its own): where it is, and the flags these machines need. Without the
 * background-networking flags Chromium's own connections are refused by the closed network, many at once.
 */
import { existsSync } from "node:fs";

export const CHROMIUM = "/usr/bin/chromium";

/** Whether Debian's Chromium is installed (CI installs it; .ci/run). */
export const chromiumPresent = existsSync(CHROMIUM);

export const CHROMIUM_ARGS = [
	"--no-sandbox",
	"--disable-gpu",
	"--disable-quic",
	"--no-first-run",
	"--disable-background-networking",
	"--disable-component-update",
	"--disable-sync",
];
