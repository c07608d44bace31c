/**
 * Which tool calls a reply holds in its text, for a model whose server did not turn them into
 * native calls (a template it does not know, llama.cpp without --jinja, a quantised model that
 * drifts from its template) or a model told to write them (`tool_calls: text`).
 *
 * The rule (docs/models.md, "Tool calls written as text"): a call counts when it is written in
 * one of the families' syntaxes outside quoted code and nothing but other calls follows it;
 * bare JSON counts only when it is the whole reply, names a tool that exists and comes from a
 * local server or a text-mode model; a fenced block counts when it is cairn's own form. A call quoted in a code block, or an object given as an
 * example in prose, is not one. A family's call that is followed by more text is neither made
 * nor taken as an answer: the model is asked again.
 */
import { codeRegions, type Fence } from "./code.js";
import { type Marked, markedCalls, WRAPPER_TOKENS } from "./families.js";
import { type CallFamily, callsOf, jsonSequence, parseLoose, type TextToolCall } from "./json.js";

export type { CallFamily, TextToolCall } from "./json.js";

export interface ReplyCalls {
  /** What the person reads: the reply without the calls taken from it. */
  prose: string;
  calls: TextToolCall[];
  /** Why a call the reply holds was not taken: the reply is then no answer, and the model is asked again. */
  unexecuted?: string;
}

export interface ReadOptions {
  /** Whether a tool of that name exists: bare and fenced JSON naming none is only JSON. */
  isTool(name: string): boolean;
  /** The model was told to write its calls as fenced JSON (`tool_calls: text`). */
  fencedCalls: boolean;
  /**
   * A reply that is nothing but a JSON call (bare, or alone in a fence) counts: from a local
   * server, whose parser may have missed it, and in text mode. A hosted API parses its own
   * models' calls, so from it such a reply is JSON the person asked for.
   */
  bareJson: boolean;
}

/** How each family is named to the model when one of its calls was not made. */
const FAMILY_SYNTAX: Record<CallFamily, string> = {
  hermes: "<tool_call>",
  "qwen3-coder": "<function=…>",
  mistral: "[TOOL_CALLS]",
  llama: "<|python_tag|>",
  deepseek: "<｜tool▁call▁begin｜>",
  granite: "<|tool_call|>",
  json: "JSON",
  fenced: "cairn's fenced JSON",
};

/** Reasoning a server left in the content (`<think>…</think>`, or all before a lone `</think>`): a call there is thought about, not made. */
function reasoningRanges(text: string): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  for (const match of text.matchAll(/<think>[\s\S]*?(?:<\/think>|$)/g))
    ranges.push([match.index, match.index + match[0].length]);
  const close = text.indexOf("</think>");
  if (close >= 0 && !text.slice(0, close).includes("<think>")) ranges.push([0, close + "</think>".length]);
  return ranges;
}

/** The text with `ranges` blanked out, every offset kept. */
function blank(text: string, ranges: ReadonlyArray<readonly [number, number]>): string {
  let out = "";
  let from = 0;
  for (const [start, end] of [...ranges].sort((a, b) => a[0] - b[0])) {
    if (end <= from) continue;
    const at = Math.max(start, from);
    out += text.slice(from, at) + text.slice(at, end).replace(/[^\n]/g, " ");
    from = end;
  }
  return out + text.slice(from);
}

const CALL_FENCES = new Set(["", "json", "tool", "tool_call"]);

/**
 * A fenced block holding calls to tools that exist: cairn's form (`{"tool": …}`) in any mode;
 * in text mode also `{"name": …}`, which models drift to; otherwise that form only when the
 * block is the whole reply, as llama.cpp reads it. Anything else fenced is code being shown.
 */
function fencedCall(text: string, fence: Fence, options: ReadOptions): Marked | undefined {
  if (!CALL_FENCES.has(fence.info.toLowerCase())) return undefined;
  const body = text.slice(fence.bodyStart, fence.bodyEnd).trim();
  if (!body.startsWith("{") && !body.startsWith("[")) return undefined;
  const value = parseLoose(body);
  const calls = callsOf(value, "fenced");
  if (!calls?.every((call) => options.isTool(call.name))) return undefined;
  const items = Array.isArray(value) ? value : [value];
  const cairnForm = items.every((item) => typeof (item as { tool?: unknown }).tool === "string");
  const whole = text.replace(WRAPPER_TOKENS, "").trim() === text.slice(fence.start, fence.end).trim();
  if (!cairnForm && !options.fencedCalls && !(whole && options.bareJson)) return undefined;
  // Only cairn's own form says outright that it is a call; `{"name": …}` in a fence may be an example.
  const family = cairnForm ? "fenced" : "json";
  return { start: fence.start, end: fence.end, family, calls: calls.map((call) => ({ ...call, family })) };
}

/** A reply that is nothing but JSON calls to tools that exist (Llama 3.x, and Hermes models without their tags). */
function bareCalls(text: string, options: ReadOptions): ReplyCalls | undefined {
  const body = text.replace(WRAPPER_TOKENS, "").trim();
  if (!body.startsWith("{") && !body.startsWith("[")) return undefined;
  const sequence = jsonSequence(body, 0);
  if (!sequence || body.slice(sequence.end).trim()) return undefined;
  const calls = sequence.values.map((value) => callsOf(value, "json"));
  if (calls.some((call) => call === undefined)) return undefined;
  const flat = calls.flat() as TextToolCall[];
  return flat.every((call) => options.isTool(call.name)) ? { prose: "", calls: flat } : undefined;
}

/** Findings in order, a later one that starts inside an earlier one left out. */
function ordered(found: Marked[]): Marked[] {
  const out: Marked[] = [];
  for (const item of [...found].sort((a, b) => a.start - b.start)) {
    const previous = out.at(-1);
    if (!previous || item.start >= previous.end) out.push(item);
  }
  return out;
}

function withoutSpans(text: string, spans: readonly Marked[]): string {
  let prose = "";
  let from = 0;
  for (const span of spans) {
    prose += text.slice(from, span.start);
    from = span.end;
  }
  return (prose + text.slice(from)).replace(WRAPPER_TOKENS, "").trim();
}

export function readReply(text: string, options: ReadOptions): ReplyCalls {
  const code = codeRegions(text);
  const hidden = [...code.ranges, ...reasoningRanges(text)];
  const masked = blank(text, hidden);
  const fenced = code.fences.flatMap((fence) => fencedCall(text, fence, options) ?? []);
  const found = ordered([...markedCalls(text, masked), ...fenced]);
  const whole = { prose: text.replace(WRAPPER_TOKENS, "").trim(), calls: [] };
  const last = found.at(-1);
  if (!last) return (options.bareJson ? bareCalls(text, options) : undefined) ?? whole;
  const tail = text.slice(last.end).replace(WRAPPER_TOKENS, "").trim();
  if (tail) {
    // A fenced `{"name": …}` with prose after it is an example; a family's markers, or cairn's
    // own form, are not written by accident.
    const call = found.find((finding) => finding.family !== "json");
    if (!call) return whole;
    return {
      ...whole,
      unexecuted: `a call in ${FAMILY_SYNTAX[call.family]} syntax is followed by more text, so it was not made`,
    };
  }
  const problem = found.find((finding) => finding.problem);
  if (problem)
    return {
      ...whole,
      unexecuted: `a call in ${FAMILY_SYNTAX[problem.family]} syntax could not be read: ${problem.problem}`,
    };
  return { prose: withoutSpans(text, found), calls: found.flatMap((finding) => finding.calls) };
}
