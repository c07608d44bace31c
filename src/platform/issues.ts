/**
 * Validation messages in one shape, "expected …, (got …; did you mean …?)", for people (config,
 * flags) and for the model (tool arguments) alike.
 */
import type { z } from "zod";
import { closest } from "./text.js";

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
 * What a string of a format is, in words: a pattern's own message where the schema wrote one
 * ("expected letters, digits…"), as "text matching …" where it did not; never "a regex".
 */
function formatWords(issue: z.core.$ZodIssueInvalidStringFormat): string {
  if (issue.format === "url") return "a URL, e.g. http://127.0.0.1:8000/v1";
  if (issue.format !== "regex") return `a ${issue.format}`;
  // zod's own message starts "Invalid string"; a schema's own says what the text should be.
  if (!/^invalid\b/i.test(issue.message)) return issue.message.replace(/^expected\s+/i, "");
  return `text matching ${issue.pattern ?? "the pattern"}`;
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
      return expectation(formatWords(issue), found);
    case "invalid_key":
      return issue.issues.map((inner) => describeIssue(inner as z.core.$ZodIssue)).join("; ");
    default:
      return issue.message;
  }
}
