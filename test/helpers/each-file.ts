/**
 * Run before every test file (vitest's `setupFiles`), which a test file's own imports are not when its
 * worker shares modules between files: a helper's module is evaluated once per worker, so a hook it
 * registered at its top would reach only the first file. The cleanups every file needs are registered here.
 */
import { afterEach } from "vitest";
import { stopWorkers } from "./workers.ts";

afterEach(stopWorkers);
