import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root, whether this runs compiled (dist/bench/…) or from source under vitest. */
function findRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, "package.json"))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

export const ROOT = findRoot(path.dirname(fileURLToPath(import.meta.url)));
export const CAIRN_BIN = path.join(ROOT, "bin", "cairn.js");
export const FIXTURES = path.join(ROOT, "bench", "fixtures");
