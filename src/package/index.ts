export { writeFileAtomic } from "./atomic.ts";
export { findPackageRoot, grammarSource, PACKAGE_ROOT } from "./root.ts";
