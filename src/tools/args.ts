import { jsonrepair } from "jsonrepair";
import type { z } from "zod";
import { describeIssue } from "../platform/issues.js";

export type ArgumentsResult =
  | { ok: true; value: unknown; repaired: boolean }
  | {
      ok: false;
      message: string;
      /**
       * The arguments were cut off before they were whole (the output's length limit, a stream
       * that stopped): with what can be read of them, closed as they stood, to say what the call
       * was for (its path), never to run it.
       */
      cut?: { partial: Record<string, unknown> | undefined };
    };

const FENCE = /^\s*```[a-zA-Z0-9_-]*\s*\n?([\s\S]*?)\n?\s*```\s*$/;

/**
 * How the model's output ended, from the provider's finish reason (the AI SDK's names): the
 * model closed its turn itself, or its output hit the length limit, or the provider did not say.
 */
type OutputEnd = "model" | "limit" | "unknown";

function outputEnd(finishReason: string): OutputEnd {
  if (finishReason === "stop" || finishReason === "tool-calls") return "model";
  return finishReason === "length" ? "limit" : "unknown";
}

/** A JSON number or literal that is whole as it stands; `1.`, `-`, `tru` are not. */
const WHOLE_VALUE = /^(?:-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null|True|False|None)$/;

/**
 * Why text that stops with brackets still open was cut off, if it was. Inside a string, after a
 * key, or on a word or number that is not whole, a value itself was cut: closing the text would
 * run a call with half its content (a command cut short, half a file), so it is refused whatever
 * the provider says. Otherwise it depends on how the output ended: cut by the length limit, it
 * is refused too, as more items may have followed; ended by the model itself, every value is
 * complete and only the closing brackets are missing (after a trailing comma too), so it is
 * closed. When the provider did not say, text after a comma or on a number is refused, as it may
 * have gone on.
 */
function cutOff(text: string, end: OutputEnd): string | undefined {
  const open: string[] = [];
  let quote = "";
  let escaped = false;
  let expectKey = false;
  let stringIsKey = false;
  let token = "";
  let last: "open" | "close" | "colon" | "comma" | "key" | "value" | "bare" = "open";
  for (const char of text) {
    if (quote) {
      if (escaped) escaped = false;
      else if (char === "\\") escaped = true;
      else if (char === quote) {
        quote = "";
        last = stringIsKey ? "key" : "value";
      }
      continue;
    }
    if (/\s/.test(char)) {
      if (last === "bare") token += " ";
      continue;
    }
    if (char === '"' || char === "'") {
      quote = char;
      stringIsKey = open.at(-1) === "{" && expectKey;
    } else if (char === "{" || char === "[") {
      open.push(char);
      expectKey = char === "{";
      last = "open";
    } else if (char === "}" || char === "]") {
      open.pop();
      expectKey = false;
      last = "close";
    } else if (char === ":") {
      expectKey = false;
      last = "colon";
    } else if (char === ",") {
      expectKey = open.at(-1) === "{";
      last = "comma";
    } else {
      token = last === "bare" ? token + char : char;
      last = "bare";
    }
  }
  if (quote) return "they end inside a string";
  if (open.length === 0) return undefined;
  if (last === "key" || last === "colon") return "they end after a key, before its value";
  if (last === "bare" && (end !== "model" || !WHOLE_VALUE.test(token.trim()))) {
    return "they end on a value that may be incomplete";
  }
  if (end === "limit") {
    return 'the model\'s output reached its length limit (finish reason "length") before the call was closed';
  }
  if (last === "comma" && end === "unknown") return "they end after a comma, before the next item";
  return undefined;
}

/** What can be read of arguments cut off half-way, closed where they stopped; undefined when nothing can. */
function partialArguments(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(jsonrepair(text));
    return value !== null && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Text a model wrote as tool arguments, made into a value: parsed as is, else repaired. */
function parseArgumentText(
  text: string,
  ending: OutputEnd,
):
  | { value: unknown; repaired: boolean }
  | { error: string; cut?: { partial: Record<string, unknown> | undefined } } {
  const trimmed = text.trim();
  if (trimmed === "") return { value: {}, repaired: false };
  try {
    return { value: JSON.parse(trimmed), repaired: false };
  } catch {
    const unfenced = FENCE.exec(trimmed)?.[1] ?? trimmed;
    const cut = cutOff(unfenced, ending);
    if (cut) {
      return {
        error:
          `the arguments are cut off: ${cut}. Send the whole call again; ` +
          "a long text can be written in parts, with write_file and then append_file",
        cut: { partial: partialArguments(unfenced) },
      };
    }
    // Models sometimes wrap the object in a sentence: the outermost braces are tried next.
    const start = unfenced.indexOf("{");
    const end = unfenced.lastIndexOf("}");
    const inner = unfenced.slice(start, end + 1);
    // Prose before the object: the braces first, as repairing the whole would read the prose too.
    // Text that starts with the object is tried whole first: a brace inside one of its strings
    // ("**/*.{yml,yaml}") must not cut it short.
    const candidates =
      start < 0 || end <= start ? [unfenced] : start > 0 ? [inner, unfenced] : [unfenced, inner];
    let problem = "";
    for (const candidate of candidates) {
      try {
        const value: unknown = JSON.parse(jsonrepair(candidate));
        if (value !== null && typeof value === "object" && !Array.isArray(value))
          return { value, repaired: true };
        problem = "it is not an object";
      } catch (error) {
        problem ||= (error as Error).message;
      }
    }
    return { error: `arguments are not valid JSON and could not be repaired (${problem})` };
  }
}

function isNumericString(value: unknown): value is string {
  return typeof value === "string" && /^\s*-?\d+(\.\d+)?\s*$/.test(value);
}

/**
 * Fixes only the type slips models make where the intent is unambiguous: "3" for 3,
 * "true" for true, a JSON-encoded object or array where one was expected, a lone value
 * where a list of strings was expected. Anything else is left for the schema to reject.
 */
function coerceAt(value: unknown, issue: z.core.$ZodIssue): unknown {
  if (issue.code !== "invalid_type") return undefined;
  const expected = issue.expected;
  if (expected === "number" || expected === "int") {
    if (isNumericString(value)) return Number(value);
  } else if (expected === "boolean") {
    if (value === "true" || value === "false") return value === "true";
  } else if (expected === "object" || expected === "record" || expected === "array") {
    if (typeof value === "string") {
      try {
        const parsed = JSON.parse(value);
        if (expected === "array" ? Array.isArray(parsed) : parsed && typeof parsed === "object")
          return parsed;
      } catch {
        // not JSON: a lone string where a list was expected is wrapped below
      }
      if (expected === "array") return [value];
    }
  } else if (expected === "string") {
    if (typeof value === "number" || typeof value === "boolean") return String(value);
  }
  return undefined;
}

function getAt(root: unknown, pathKeys: PropertyKey[]): unknown {
  let current = root;
  for (const key of pathKeys) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

function setAt(root: unknown, pathKeys: PropertyKey[], value: unknown): unknown {
  if (pathKeys.length === 0) return value;
  const container = getAt(root, pathKeys.slice(0, -1)) as Record<PropertyKey, unknown>;
  container[pathKeys[pathKeys.length - 1] as PropertyKey] = value;
  return root;
}

/** The schema's complaints in the words people get for a bad config: "expected …, (got …)". */
function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.length ? issue.path.join(".") : "(arguments)"}: ${describeIssue(issue)}`)
    .join("; ");
}

const MAX_COERCION_ROUNDS = 5;

/**
 * Repairs (broken JSON) and validates a tool call's arguments against the tool's schema before
 * anything runs. `raw` is the provider's parsed input, or the raw text when it did not parse;
 * `finishReason` is how the provider said the model's output ended (the AI SDK's "stop",
 * "tool-calls", "length", …), which decides whether text missing its closing brace is closed.
 */
export function prepareArguments(raw: unknown, schema: z.ZodType, finishReason = "unknown"): ArgumentsResult {
  const ending = outputEnd(finishReason);
  let value: unknown;
  let repaired = false;
  if (typeof raw === "string") {
    const parsed = parseArgumentText(raw, ending);
    if ("error" in parsed)
      return { ok: false, message: parsed.error, ...(parsed.cut ? { cut: parsed.cut } : {}) };
    ({ value, repaired } = parsed);
  } else {
    value = raw ?? {};
  }
  // A model that double-encodes its arguments sends a JSON string holding the object.
  if (typeof value === "string") {
    const inner = parseArgumentText(value, ending);
    if (!("error" in inner)) {
      value = inner.value;
      repaired = true;
    }
  }
  value = structuredClone(value);
  for (let round = 0; ; round++) {
    const result = schema.safeParse(value, { reportInput: true });
    if (result.success) return { ok: true, value: result.data, repaired };
    let changed = false;
    for (const issue of result.error.issues) {
      const current = getAt(value, issue.path);
      // null for an optional field means "not given"; for a required one the schema still refuses it.
      if (current === null && issue.code === "invalid_type" && issue.path.length > 0) {
        const container = getAt(value, issue.path.slice(0, -1)) as Record<PropertyKey, unknown>;
        delete container[issue.path.at(-1) as PropertyKey];
        changed = true;
        continue;
      }
      const coerced = coerceAt(current, issue);
      if (coerced !== undefined) {
        value = setAt(value, issue.path, coerced);
        changed = true;
      }
    }
    if (!changed || round === MAX_COERCION_ROUNDS) {
      return { ok: false, message: `invalid arguments: ${describeIssues(result.error)}` };
    }
    repaired = true;
  }
}
