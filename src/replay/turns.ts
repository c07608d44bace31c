// What a model server replays: turns of text and tool calls, and how each is said in each
// provider's wire format. The demo replays a recording with it; the tests script it.
export interface ScriptedToolCall {
  name: string;
  /** A string is sent verbatim as the arguments text (to script broken JSON); anything else is JSON-encoded. */
  args: unknown;
  id?: string;
}

export interface ScriptedTurn {
  /** Streamed in several chunks. */
  text?: string;
  reasoning?: string;
  toolCalls?: ScriptedToolCall[];
  /**
   * `input` is the total prompt size including cached tokens, so the SDK's `usage.inputTokens` equals it in
   * every format (Anthropic's wire `input_tokens` is the uncached remainder). Ollama has no cache fields.
   * Derived from request and answer sizes when absent. `none`: the answer reports no usage at all,
   * as some servers do.
   */
  usage?:
    | { input: number; output: number; cached?: number; cacheWrite?: number; reasoning?: number }
    | "none";
  /** An HTTP error answer; without a body, the format's own error shape is used. */
  error?: { status: number; body?: unknown; headers?: Record<string, string> };
  /** Accept the request and never answer, until the client goes away or the server closes. */
  hang?: boolean;
  /** Start streaming, then destroy the socket mid-text or mid-tool-call arguments. */
  cut?: "text" | "tool";
  /**
   * Say the output stopped at its length limit (OpenAI `length`, Responses `incomplete` for
   * max_output_tokens, Anthropic `max_tokens`, Ollama `length`) instead of ending normally.
   */
  finish?: "length";
  /** Stream the text in this many pieces, one every `everyMs`, as a model does at its own pace. */
  pace?: { pieces: number; everyMs: number };
  /**
   * Never finish: after the turn's text (`in: "text"`, the default) or its one tool call's
   * arguments so far (`in: "tool"`, for a turn with no text), stream `chunk` as more
   * of the same, again and again, every `everyMs` (as fast as the client reads when 0), until the
   * client goes away or the server closes. A model caught in a loop, or a server with no limit.
   */
  endless?: { chunk: string; in?: "text" | "tool"; everyMs?: number };
  /**
   * After the turn's text and tool-call arguments, send this error inside the stream (each
   * format's own error event, after a 200) and end it, as a server that fails mid-answer does.
   */
  streamError?: { message: string; type?: string };
  /** Destroy the socket before any response. */
  resetConnection?: boolean;
  /** Wait before the first byte. */
  delayMs?: number;
}

export type WireFormat = "openai" | "openai-responses" | "anthropic" | "ollama";

export interface RecordedRequest {
  format: WireFormat;
  method: string;
  path: string;
  headers: Record<string, string>;
  // biome-ignore lint/suspicious/noExplicitAny: tests dig into provider-specific request bodies.
  body: any;
  rawBody: string;
  turnIndex: number;
}

export interface ScriptedServer {
  url: string;
  openaiBaseUrl: string;
  /** OpenRouter's API always reports usage when streaming, whatever `stream_options` says; this prefix does too. */
  openrouterBaseUrl: string;
  anthropicBaseUrl: string;
  ollamaBaseUrl: string;
  requests: RecordedRequest[];
  /**
   * Embedding requests (`/v1/embeddings`, `/api/embed`), answered by a local stand-in
   * (embeddings.ts) and kept apart: they consume no turn of the script.
   */
  embeddingRequests: Array<{ path: string; model: string; inputs: number }>;
  /** Requests to the played server's model endpoints (`GET /api/tags`, `POST /api/show`), kept apart like embeddings. */
  infoRequests: string[];
  /** Turns not yet consumed; Infinity for a function script. */
  remaining(): number;
  close(): Promise<void>;
}

export type Script = ScriptedTurn[] | ((request: RecordedRequest, index: number) => ScriptedTurn);

export interface Answer {
  id: string;
  text: string;
  reasoning: string;
  cutAtLimit: boolean;
  /** How many pieces the text streams in. */
  textPieces: number;
  toolCalls: { id: string; name: string; args: string; parsed: unknown }[];
  usage: { input: number; output: number; cached: number; cacheWrite: number | undefined; reasoning: number };
  /** False when the turn reports no usage: each format then leaves its usage fields out. */
  usageReported: boolean;
}

export function normalise(turn: ScriptedTurn, request: RecordedRequest, index: number): Answer {
  const text = turn.text ?? "";
  const reasoning = turn.reasoning ?? "";
  const toolCalls = (turn.toolCalls ?? []).map((call, i) => {
    const args = typeof call.args === "string" ? call.args : JSON.stringify(call.args ?? {});
    return { id: call.id ?? `call_${index}_${i}`, name: call.name, args, parsed: parseJson(args) ?? args };
  });
  const tokens = (s: string) => Math.ceil(s.length / 4);
  const scripted = turn.usage === "none" ? undefined : turn.usage;
  const reasoningTokens = scripted?.reasoning ?? tokens(reasoning);
  const usage = {
    input: scripted?.input ?? Math.max(1, tokens(request.rawBody)),
    output:
      scripted?.output ??
      Math.max(
        1,
        tokens(text) + reasoningTokens + toolCalls.reduce((n, c) => n + tokens(c.name + c.args), 0),
      ),
    cached: scripted?.cached ?? 0,
    cacheWrite: scripted?.cacheWrite,
    reasoning: reasoningTokens,
  };
  return {
    id: `scripted-${index}`,
    text,
    reasoning,
    cutAtLimit: turn.finish === "length",
    textPieces: turn.pace?.pieces ?? 4,
    toolCalls,
    usage,
    usageReported: turn.usage !== "none",
  };
}

export function wantsStream(format: WireFormat, body: { stream?: unknown } | undefined): boolean {
  // Ollama streams unless told not to; the others only when asked.
  return format === "ollama" ? body?.stream !== false : body?.stream === true;
}

/** Several pieces, split on code points so no piece holds half a surrogate pair. */
export function pieces(text: string, count = 4): string[] {
  const chars = Array.from(text);
  const size = Math.max(1, Math.ceil(chars.length / count));
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(""));
  return out;
}

export interface Frame {
  data: string;
  /** Frames that carry text or tool-argument deltas, where a cut can land. */
  kind?: "text" | "tool";
}

/** The frames up to and including the last of that kind; undefined when there is none. */
export function framesThrough(frames: Frame[], kind: "text" | "tool"): Frame[] | undefined {
  const index = frames.findLastIndex((f) => f.kind === kind);
  return index === -1 ? undefined : frames.slice(0, index + 1);
}

/** Up to and including the first frame of that kind, or half of it when it is the only one, so that what it carries stays unfinished. */
export function cutPoint(
  frames: Frame[],
  kind: "text" | "tool",
): { index: number; partial: string } | undefined {
  const marked = frames.flatMap((f, i) => (f.kind === kind ? [i] : []));
  const first = marked[0];
  if (first === undefined) return undefined;
  const frame = frames[first]!.data;
  return marked.length > 1
    ? { index: first + 1, partial: "" }
    : { index: first, partial: frame.slice(0, Math.floor(frame.length / 2)) };
}

/** The model name every answer gives. */
export const MODEL = "scripted-model";

export function sse(value: unknown): string {
  return `data: ${JSON.stringify(value)}\n\n`;
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
