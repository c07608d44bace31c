/**
 * What the file holds nearest to an old_string that matched nowhere, to show the model what it
 * probably meant, and the similarity measure that finds it.
 */
import { numberedLine } from "./listing.js";

/** Character pairs as sorted numbers: compact enough to keep one per line of a large file. */
function bigrams(text: string): Int32Array {
  const pairs = new Int32Array(Math.max(text.length - 1, 0));
  for (let i = 0; i < pairs.length; i++) pairs[i] = (text.charCodeAt(i) << 16) | text.charCodeAt(i + 1);
  return pairs.sort();
}

/** Dice coefficient of two sorted pair lists (shared pairs counted as a multiset). */
function dice(a: Int32Array, b: Int32Array): number {
  if (a.length === 0 || b.length === 0) return 0;
  let shared = 0;
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      shared++;
      i++;
      j++;
    } else if (a[i]! < b[j]!) {
      i++;
    } else {
      j++;
    }
  }
  return (2 * shared) / (a.length + b.length);
}

/** 1 for equal strings, 0 for nothing in common (Dice coefficient over character pairs). */
export function similarity(a: string, b: string): number {
  return a === b ? 1 : dice(bigrams(a), bigrams(b));
}

/** Above this many line comparisons, windows are scored by equal lines only, to stay fast. */
const SIMILARITY_BUDGET = 1_500_000;

/** `tried` says what was tolerated on the way; the message goes on with the closest lines, if any. */
export function notFoundMessage(content: string, oldString: string, tried: string): string {
  const fileLines = content.split("\n").map((line) => line.replace(/\r$/, ""));
  const oldLines = oldString.replace(/\r\n/g, "\n").replace(/\n$/, "").split("\n");
  const m = Math.min(oldLines.length, fileLines.length);
  const fileKeys = fileLines.map((line) => line.trim());
  const oldKeys = oldLines.map((line) => line.trim());
  const exhaustive = fileLines.length * m <= SIMILARITY_BUDGET;
  const fileGrams = exhaustive ? fileKeys.map(bigrams) : [];
  const oldGrams = exhaustive ? oldKeys.map(bigrams) : [];
  const score = (j: number, i: number): number => {
    const a = oldKeys[j]!;
    const b = fileKeys[i]!;
    if (a === b) return 1;
    return exhaustive ? dice(oldGrams[j]!, fileGrams[i]!) : 0;
  };

  let best = -1;
  let bestScore = 0;
  for (let i = 0; i + m <= fileLines.length; i++) {
    let total = 0;
    for (let j = 0; j < m; j++) total += score(j, i + j);
    if (total > bestScore) {
      bestScore = total;
      best = i;
    }
  }
  if (best === -1 || bestScore / m < 0.3) {
    return `${tried}\nNothing in the file resembles it. Read the file (read_file) and copy old_string from it exactly.`;
  }

  const from = Math.max(0, best - 2);
  const to = Math.min(fileLines.length, best + m + 2);
  const shown = fileLines
    .slice(from, to)
    .map((line, k) => numberedLine(from + k + 1, line))
    .join("\n");
  const differs = oldLines.findIndex((line, j) => line !== fileLines[best + j]);
  const firstDifference =
    differs === -1
      ? ""
      : `\nFirst difference, at line ${best + differs + 1}:\n` +
        `  file:       ${JSON.stringify(fileLines[best + differs]) ?? "(past the end of the file)"}\n` +
        `  old_string: ${JSON.stringify(oldLines[differs])}`;
  return (
    `${tried}\nThe closest text is at lines ${best + 1}-${best + m}:\n${shown}${firstDifference}\n` +
    "Copy old_string exactly from the file (without the line-number prefix) and try again."
  );
}
