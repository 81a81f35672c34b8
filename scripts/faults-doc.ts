/**
 * Writes docs/faults.md from the fault catalogue (`npm run docs:faults`); test/faults/docs.test.ts
 * fails until the page matches, so a new or reworded code reaches the docs in the same change.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { PACKAGE_ROOT } from "../src/agents/index.ts";
import { faultsMarkdown } from "../src/faults/docs.ts";

const file = join(PACKAGE_ROOT, "docs", "faults.md");
writeFileSync(file, faultsMarkdown());
console.log(`wrote ${file}`);
