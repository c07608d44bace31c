/**
 * The model families' own syntaxes for a tool call, as their chat templates define them and the
 * servers' parsers read them (vLLM's tool parsers, llama.cpp's chat parsers, Ollama's
 * `tools` package and model parsers): each found where its marker opens outside quoted code.
 */
import { type CallFamily, callsOf, jsonEnd, jsonSequence, parseLoose, type TextToolCall } from "./json.js";

/** A call (or several) in a family's syntax, where it lies in the reply. */
export interface Marked {
  start: number;
  end: number;
  family: CallFamily;
  calls: TextToolCall[];
  /** Why what follows the marker is no call cairn can make: no tool named, JSON that cannot be read. */
  problem?: string;
}

/**
 * Each scanner finds its markers in `masked` (the reply with quoted code and reasoning blanked
 * out, offsets unchanged) and reads what follows them in `text`, so a backtick inside a call's
 * arguments cannot hide part of them.
 */
type Scanner = (text: string, masked: string) => Marked[];

function* markers(masked: string, marker: RegExp): Generator<number> {
  const pattern = new RegExp(marker.source, "g");
  for (let match = pattern.exec(masked); match; match = pattern.exec(masked)) yield match.index;
}

/** Just past `closer` from `from` on, or the end of the text when it never comes (a call the model did not close). */
function through(text: string, from: number, closer: string): { end: number; bodyEnd: number } {
  const at = text.indexOf(closer, from);
  return at < 0 ? { end: text.length, bodyEnd: text.length } : { end: at + closer.length, bodyEnd: at };
}

function unreadable(start: number, end: number, family: CallFamily, what: string): Marked {
  return { start, end, family, calls: [], problem: what };
}

/** JSON calls in `body` (one object, an array, or several in a row), as one finding. */
function jsonCalls(body: string, start: number, end: number, family: CallFamily): Marked {
  const first = body.search(/\S/);
  const sequence = first < 0 ? undefined : jsonSequence(body, first);
  const calls = sequence?.values.map((value) => callsOf(value, family));
  if (!calls?.length || calls.some((call) => call === undefined) || body.slice(sequence?.end).trim())
    return unreadable(
      start,
      end,
      family,
      "what follows the marker is not a tool call in JSON that can be read",
    );
  return { start, end, family, calls: calls.flat() as TextToolCall[] };
}

const unquoted = (name: string) => name.trim().replace(/^"(.*)"$/, "$1");

/** The one newline a template puts on each side of a parameter's value is not part of it. */
const parameterValue = (raw: string) => raw.replace(/^\n/, "").replace(/\n$/, "");

/** Qwen3-Coder's `<function=NAME>` with `<parameter=KEY>value</parameter>`s, or a JSON body (llama.cpp's functionary form). */
function functionCall(body: string): TextToolCall | undefined {
  const head = /^\s*<function=([^>\n]+)>/.exec(body);
  if (!head?.[1]) return undefined;
  const name = unquoted(head[1]);
  const inner = body.slice(head[0].length).replace(/<\/function>\s*$/, "");
  const parameters = [
    ...inner.matchAll(/<parameter=([^>\n]+)>([\s\S]*?)(?:<\/parameter>|(?=<parameter=)|$)/g),
  ];
  if (parameters.length === 0 && inner.trim().startsWith("{"))
    return { name, input: parseLoose(inner.trim()) ?? inner.trim(), family: "qwen3-coder" };
  const input = Object.fromEntries(
    parameters.map((match) => [unquoted(match[1] ?? ""), parameterValue(match[2] ?? "")]),
  );
  return { name, input, family: "qwen3-coder" };
}

/** Hermes and Qwen2.5's `<tool_call>{json}</tool_call>`, holding Qwen3-Coder's XML form too. */
const hermes: Scanner = (text, masked) =>
  [...markers(masked, /<tool_call>/)].map((start) => {
    const bodyStart = start + "<tool_call>".length;
    const closed = through(text, bodyStart, "</tool_call>");
    // A call left open ends where the next one starts.
    const next = text.indexOf("<tool_call>", bodyStart);
    const { end, bodyEnd } = next >= 0 && next < closed.bodyEnd ? { end: next, bodyEnd: next } : closed;
    const body = text.slice(bodyStart, bodyEnd);
    if (/^\s*<function=/.test(body)) {
      const call = functionCall(body);
      return call
        ? { start, end, family: "qwen3-coder" as const, calls: [call] }
        : unreadable(start, end, "qwen3-coder", "the function is not named");
    }
    return jsonCalls(body, start, end, "hermes");
  });

/** Qwen3-Coder's `<function=…>` written without the `<tool_call>` around it. */
const bareFunction: Scanner = (text, masked) =>
  [...markers(masked, /<function=[^>\n]+>/)].flatMap((start) => {
    if (/<tool_call>\s*$/.test(masked.slice(0, start))) return [];
    const { end } = through(text, start, "</function>");
    const call = functionCall(text.slice(start, end));
    return call ? [{ start, end, family: "qwen3-coder" as const, calls: [call] }] : [];
  });

/**
 * Mistral's `[TOOL_CALLS]`: a JSON list of calls (v3 templates), or `name[ARGS]{…}`, perhaps
 * with `[CALL_ID]id` before `[ARGS]` (the v11+ templates of Magistral, Devstral, Ministral).
 */
const mistral: Scanner = (text, masked) =>
  [...markers(masked, /\[TOOL_CALLS\]/)].map((start) => {
    const from = start + "[TOOL_CALLS]".length;
    const rest = text.slice(from);
    const lead = /^\s*/.exec(rest)?.[0].length ?? 0;
    if (rest[lead] === "[" || rest[lead] === "{") {
      const close = jsonEnd(text, from + lead);
      if (close === undefined)
        return unreadable(start, text.length, "mistral", "the call's JSON is not closed");
      return jsonCalls(text.slice(from, close), start, close, "mistral");
    }
    const named = /^\s*([\w.:-]+)\s*(?:\[CALL_ID\][^[]*)?(?:\[ARGS\])?\s*(?=\{)/.exec(rest);
    const close = named ? jsonEnd(text, from + named[0].length) : undefined;
    if (!named?.[1] || close === undefined)
      return unreadable(start, text.length, "mistral", "no tool name with JSON arguments follows the marker");
    const args = text.slice(from + named[0].length, close);
    return {
      start,
      end: close,
      family: "mistral" as const,
      calls: [{ name: named[1], input: parseLoose(args) ?? args, family: "mistral" as const }],
    };
  });

/** Llama 3.x's `<|python_tag|>` before its JSON call(s); the bare JSON form is read in reply.ts. */
const pythonTag: Scanner = (text, masked) =>
  [...markers(masked, /<\|python_tag\|>/)].map((start) => {
    const from = start + "<|python_tag|>".length;
    const lead = /^\s*/.exec(text.slice(from))?.[0].length ?? 0;
    const sequence = jsonSequence(text, from + lead);
    if (!sequence)
      return unreadable(
        start,
        text.length,
        "llama",
        "a built-in tool call (code, not JSON), which cairn has no tool for",
      );
    return jsonCalls(text.slice(from, sequence.end), start, sequence.end, "llama");
  });

/** Granite 3.0's `<|tool_call|>` before a JSON list of calls (3.1 and later write Hermes' `<tool_call>`). */
const granite: Scanner = (text, masked) =>
  [...markers(masked, /<\|tool_call\|>/)].map((start) => {
    const from = start + "<|tool_call|>".length;
    const lead = /^\s*/.exec(text.slice(from))?.[0].length ?? 0;
    const close = jsonEnd(text, from + lead);
    if (close === undefined)
      return unreadable(start, text.length, "granite", "the call's JSON is not closed");
    return jsonCalls(text.slice(from, close), start, close, "granite");
  });

/** DeepSeek's tokens, with the full-width bar its tokenizer uses or the ASCII one some templates write. */
const ds = (token: string) => `<[|｜]${token}[|｜]>`;
const DS_CALL_BEGIN = new RegExp(ds("tool▁call▁begin"));
const DS_CALL_END = new RegExp(ds("tool▁call▁end"));
const DS_SEP = new RegExp(ds("tool▁sep"));

/**
 * A DeepSeek call: `function<｜tool▁sep｜>NAME` then a fenced JSON block (V3, R1), or
 * `NAME<｜tool▁sep｜>{json}` (V3.1 and later), between `<｜tool▁call▁begin｜>` and `<｜tool▁call▁end｜>`.
 */
const deepseek: Scanner = (text, masked) =>
  [...markers(masked, DS_CALL_BEGIN)].map((start) => {
    const opener = DS_CALL_BEGIN.exec(text.slice(start))?.[0] ?? "";
    const bodyStart = start + opener.length;
    const close = DS_CALL_END.exec(text.slice(bodyStart));
    const bodyEnd = close ? bodyStart + close.index : text.length;
    const end = close ? bodyEnd + close[0].length : text.length;
    const [left = "", ...right] = text.slice(bodyStart, bodyEnd).split(DS_SEP);
    const after = right.join("");
    if (right.length === 0) return unreadable(start, end, "deepseek", "the call has no tool name");
    const v3 = left.trim() === "function";
    const name = (v3 ? after.split("\n")[0] : left)?.trim() ?? "";
    const argsText = (
      v3 ? (/```(?:json)?\s*\n?([\s\S]*?)```/.exec(after)?.[1] ?? after.slice(name.length)) : after
    ).trim();
    if (!name) return unreadable(start, end, "deepseek", "the call has no tool name");
    return {
      start,
      end,
      family: "deepseek" as const,
      calls: [{ name, input: parseLoose(argsText) ?? argsText, family: "deepseek" as const }],
    };
  });

const SCANNERS: readonly Scanner[] = [hermes, bareFunction, mistral, pythonTag, granite, deepseek];

/** Every call in a family's syntax outside quoted code, in the order they come. */
export function markedCalls(text: string, masked: string): Marked[] {
  return SCANNERS.flatMap((scan) => scan(text, masked)).sort((a, b) => a.start - b.start);
}

/**
 * Tokens that wrap calls or end a turn, which a server that missed the call leaves in the
 * content: part of the calls, not of what the person reads.
 */
export const WRAPPER_TOKENS = new RegExp(
  [
    ds("tool▁calls▁begin"),
    ds("tool▁calls▁end"),
    ds("end▁of▁sentence"),
    "\\[/TOOL_CALLS\\]",
    "<\\|eot_id\\|>",
    "<\\|eom_id\\|>",
    "<\\|im_end\\|>",
    "<\\|end_of_text\\|>",
    "<\\|endoftext\\|>",
    "<\\|end\\|>",
    "</s>",
  ].join("|"),
  "g",
);
