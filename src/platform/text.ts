import os from "node:os";
import path from "node:path";

export { firstLine, plural } from "./format.js";

/** A path under the home folder as `~/…`, the way people write it. */
export function homePath(file: string, home: string = os.homedir()): string {
  const rel = path.relative(home, file);
  return rel && !rel.startsWith("..") && !path.isAbsolute(rel) ? path.join("~", rel) : file;
}

/** A file as the person finds it: relative to the workspace when inside it, else under `~/`, else whole. */
export function shownPath(file: string, workspace: string, home: string = os.homedir()): string {
  const inWorkspace = path.relative(workspace, file);
  return inWorkspace.startsWith("..") || path.isAbsolute(inWorkspace) ? homePath(file, home) : inWorkspace;
}

/** `target` is `root` or below it; both absolute, or both relative to the same folder. */
export function isInside(root: string, target: string): boolean {
  const rel = path.relative(root, target);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

/** Edit distance counting a swap of neighbours as one edit, since that is the commonest typo. */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      }
      rows[i]![j] = best;
    }
  }
  return rows[a.length]![b.length]!;
}

/**
 * The candidate closest to what was typed, if it is close enough to be a plausible typo.
 * Case, `-` and `_` are ignored so `maxIterations` finds `max_iterations`.
 */
export function closest(typed: string, candidates: readonly string[]): string | undefined {
  const normal = (word: string) => word.toLowerCase().replace(/[-_]/g, "");
  let best: { word: string; distance: number } | undefined;
  for (const word of candidates) {
    const distance = editDistance(normal(typed), normal(word));
    if (distance <= Math.max(1, Math.floor(word.length / 3)) && (!best || distance < best.distance)) {
      best = { word, distance };
    }
  }
  return best?.word;
}

/** A pattern where `*` matches any run of characters and nothing else is special, whole-string. */
export function wildcard(pattern: string): RegExp {
  const parts = pattern.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(`^${parts.join(".*")}$`, "s");
}
