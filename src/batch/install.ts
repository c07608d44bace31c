import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

let found: { root: string; version: string } | undefined;

/**
 * This installation of cairn: its folder and version, found from this module whether it runs
 * from `src/` (tests) or `dist/` (the CLI).
 */
function installation(): { root: string; version: string } {
  if (found) return found;
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); ; dir = path.dirname(dir)) {
    const manifest = path.join(dir, "package.json");
    if (existsSync(manifest)) {
      const { name, version } = JSON.parse(readFileSync(manifest, "utf8")) as {
        name?: string;
        version?: string;
      };
      if (name === "cairn") {
        found = { root: dir, version: version ?? "unknown" };
        return found;
      }
    }
    if (path.dirname(dir) === dir)
      throw new Error("cairn's own package.json was not found above this module");
  }
}

export const cairnRoot = (): string => installation().root;
export const cairnVersion = (): string => installation().version;
/** `bin/cairn.js`: what a task's own cairn process is started from. */
export const cairnEntry = (): string => path.join(cairnRoot(), "bin", "cairn.js");
