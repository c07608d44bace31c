import type { z } from "zod";

/**
 * A configuration the run cannot start with. The CLI exits with `exitCode` (2: bad usage or
 * configuration, DESIGN.md "Command line") and prints the message as it is, so the message must
 * say where (file, variable or flag), which key, what was expected and what was found.
 */
export class ConfigError extends Error {
  readonly exitCode = 2;
  override name = "ConfigError";
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

/** A found value as a person reads it in a message: strings quoted, containers by kind. */
export function shown(value: unknown): string {
  if (value === undefined || value === null) return "nothing";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a mapping";
  if (typeof value === "string")
    return JSON.stringify(value.length > 80 ? `${value.slice(0, 77)}...` : value);
  return String(value);
}

/** The one shape of every validation message: what was expected, what was found, a likely fix. */
export function expectation(expected: string, found: unknown, suggestion?: string): string {
  const hint = suggestion === undefined ? "" : `; did you mean ${JSON.stringify(suggestion)}?`;
  return `expected ${expected} (got ${shown(found)}${hint})`;
}

const TYPE_WORDS: Record<string, string> = {
  number: "a number",
  int: "a whole number",
  string: "text",
  boolean: "true or false",
  object: "a mapping (key: value lines)",
  record: "a mapping (key: value lines)",
  array: "a list",
};

function bound(
  issue: { origin: string; inclusive?: boolean },
  value: number | bigint,
  side: "min" | "max",
): string {
  const limit = String(value);
  if (issue.origin === "string") {
    if (side === "min" && limit === "1") return "non-empty text";
    return `text of ${side === "min" ? "at least" : "at most"} ${limit} characters`;
  }
  if (issue.origin === "array") return `a list of ${side === "min" ? "at least" : "at most"} ${limit} items`;
  if (issue.inclusive) return `a number ${side === "min" ? "of at least" : "of at most"} ${limit}`;
  return `a number ${side === "min" ? "greater" : "less"} than ${limit}`;
}

/**
 * One zod issue about a value as "expected …, got …" (parse with `reportInput: true` so the value
 * is there). Unknown keys are not values and are reported by the config loader, which knows the
 * keys that would have been right. Custom checks write their message with `expectation`, so it
 * passes through as it is.
 */
export function describeIssue(issue: z.core.$ZodIssue): string {
  const found = issue.input;
  switch (issue.code) {
    case "invalid_type":
      return expectation(TYPE_WORDS[issue.expected] ?? issue.expected, found);
    case "invalid_value": {
      const options = issue.values.map(String);
      const near = typeof found === "string" ? closest(found, options) : undefined;
      return expectation(`one of ${options.join(", ")}`, found, near);
    }
    case "too_small":
      return expectation(bound(issue, issue.minimum, "min"), found);
    case "too_big":
      return expectation(bound(issue, issue.maximum, "max"), found);
    case "invalid_format":
      return expectation(
        issue.format === "url" ? "a URL, e.g. http://127.0.0.1:8000/v1" : `a ${issue.format}`,
        found,
      );
    case "invalid_key":
      return issue.issues.map((inner) => describeIssue(inner as z.core.$ZodIssue)).join("; ");
    default:
      return issue.message;
  }
}
