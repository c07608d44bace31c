import { jsonrepair } from "jsonrepair";

/** One tool call read from a reply's text, and the syntax it was written in. */
export interface TextToolCall {
  name: string;
  /** Arguments as written: an object when they parse, else their text, for the same repair and validation as native calls. */
  input: unknown;
  family: CallFamily;
}

/** The syntaxes cairn reads calls in (docs/models.md, "Tool calls written as text"). */
export type CallFamily =
  | "hermes"
  | "qwen3-coder"
  | "mistral"
  | "llama"
  | "deepseek"
  | "granite"
  | "json"
  | "fenced";

/**
 * Where the JSON object or array that opens at `start` closes (just past it), counting brackets
 * outside strings; undefined when it does not close in `text`.
 */
export function jsonEnd(text: string, start: number): number | undefined {
  const opener = text[start];
  if (opener !== "{" && opener !== "[") return undefined;
  let depth = 0;
  let inString = false;
  let escaped = false;
  for (let i = start; i < text.length; i++) {
    const char = text[i];
    if (inString) {
      if (escaped) escaped = false;
      else if (char === "\\") escaped = true;
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') inString = true;
    else if (char === "{" || char === "[") depth++;
    else if (char === "}" || char === "]") {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return undefined;
}

/** JSON as written, or repaired (single quotes, a trailing comma, Python's True); undefined when neither works. */
export function parseLoose(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    try {
      return JSON.parse(jsonrepair(text));
    } catch {
      return undefined;
    }
  }
}

function record(value: unknown): Record<string, unknown> | undefined {
  return value && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/**
 * A call in the JSON shapes the families write: `{"name", "arguments"}` (Hermes, Qwen, Mistral,
 * Granite), `{"name", "parameters"}` (Llama 3.x), `{"tool", "arguments"}` (cairn's own), the
 * same inside `{"function": …}` (OpenAI's wire shape, which models echo). Arguments given as a
 * JSON string are read as the object they hold.
 */
export function callOf(value: unknown, family: CallFamily): TextToolCall | undefined {
  const object = record(value);
  if (!object) return undefined;
  const inner = record(object.function);
  if (inner && typeof inner.name === "string") return callOf(inner, family);
  const name = object.name ?? object.tool;
  if (typeof name !== "string" || name === "") return undefined;
  const args = object.arguments ?? object.parameters ?? object.args ?? {};
  const parsed = typeof args === "string" ? (record(parseLoose(args)) ?? args) : args;
  return { name, input: parsed, family };
}

/** Every call in a value: one object, or an array of them; undefined when any item is not a call. */
export function callsOf(value: unknown, family: CallFamily): TextToolCall[] | undefined {
  const items = Array.isArray(value) ? value : [value];
  const calls = items.map((item) => callOf(item, family));
  return calls.length > 0 && calls.every((call) => call !== undefined)
    ? (calls as TextToolCall[])
    : undefined;
}

/**
 * The JSON values that follow one another from `start` (separated by whitespace, commas or
 * semicolons, as Llama 3.x and Hermes models list several calls), each parsed; `end` is just past
 * the last one. Undefined when no value starts there or one does not close.
 */
export function jsonSequence(text: string, start: number): { values: unknown[]; end: number } | undefined {
  const values: unknown[] = [];
  let at = start;
  let end = start;
  for (;;) {
    while (at < text.length && /[\s,;]/.test(text[at] ?? "")) at++;
    const close = jsonEnd(text, at);
    if (close === undefined) break;
    const value = parseLoose(text.slice(at, close));
    if (value === undefined) return undefined;
    values.push(value);
    end = close;
    at = close;
  }
  return values.length ? { values, end } : undefined;
}
