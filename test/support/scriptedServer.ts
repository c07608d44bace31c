// A model server for tests: speaks the real OpenAI (chat completions and Responses), Anthropic and
// Ollama wire formats on 127.0.0.1 so the real AI SDK providers run unmodified, and answers each
// model request with the next turn of a script. Both OpenAI paths are served because `openai(id)`
// uses /responses while `openai.chat(id)`, openai-compatible and OpenRouter use /chat/completions.
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { resolve as resolvePath } from "node:path";
import { pathToFileURL } from "node:url";

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
   * Derived from request and answer sizes when absent.
   */
  usage?: { input: number; output: number; cached?: number; cacheWrite?: number; reasoning?: number };
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
  /** Turns not yet consumed; Infinity for a function script. */
  remaining(): number;
  close(): Promise<void>;
}

export type Script = ScriptedTurn[] | ((request: RecordedRequest, index: number) => ScriptedTurn);

const routes: Record<string, WireFormat> = {
  "/v1/chat/completions": "openai",
  "/openrouter/v1/chat/completions": "openai",
  "/v1/responses": "openai-responses",
  "/v1/messages": "anthropic",
  "/api/chat": "ollama",
};

const MODEL = "scripted-model";

export async function startScriptedServer(script: Script): Promise<ScriptedServer> {
  const requests: RecordedRequest[] = [];
  const timers = new Set<{ timer: NodeJS.Timeout; done: () => void }>();
  let closed = false;

  const wait = (ms: number) =>
    new Promise<void>((done) => {
      const entry = {
        timer: setTimeout(() => {
          timers.delete(entry);
          done();
        }, ms),
        done,
      };
      timers.add(entry);
    });

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const rawBody = await readBody(req);
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    if (req.method === "GET" && path === "/api/tags") {
      return sendJson(res, 200, {
        models: [{ name: MODEL, model: MODEL, modified_at: new Date().toISOString() }],
      });
    }
    const format = req.method === "POST" ? routes[path] : undefined;
    if (format === undefined) {
      return sendJson(res, 404, {
        error: { message: `scripted server: no route for ${req.method} ${path}` },
      });
    }
    const request: RecordedRequest = {
      format,
      method: req.method ?? "POST",
      path,
      headers: flattenHeaders(req),
      body: parseJson(rawBody),
      rawBody,
      turnIndex: requests.length,
    };
    requests.push(request);

    let turn: ScriptedTurn | undefined;
    if (typeof script === "function") {
      turn = script(request, request.turnIndex);
    } else {
      turn = script[request.turnIndex];
      if (turn === undefined) {
        // The reason phrase carries the message too, because some providers only surface statusText.
        const message = `scripted server: script exhausted after ${script.length} turns`;
        res.statusMessage = message;
        return sendJson(res, 500, errorBody(format, 500, message));
      }
    }

    if (turn.delayMs) await wait(turn.delayMs);
    if (closed || res.destroyed) return;
    if (turn.resetConnection) return void req.socket.destroy();
    if (turn.hang) return;
    if (turn.error) {
      const { status, body, headers } = turn.error;
      return sendJson(res, status, body ?? errorBody(format, status, `scripted error ${status}`), headers);
    }

    const answer = normalise(turn, request, request.turnIndex);
    if (!wantsStream(format, request.body)) {
      return sendJson(res, 200, completeBody(format, answer));
    }
    const usageAsked =
      path.startsWith("/openrouter/") || request.body?.stream_options?.include_usage === true;
    const frames = streamFrames(format, answer, usageAsked);
    if (turn.cut) {
      const at = cutPoint(frames, turn.cut);
      if (at === undefined) {
        return sendJson(
          res,
          500,
          errorBody(
            format,
            500,
            `scripted server: turn ${request.turnIndex} cuts mid-${turn.cut} but streams no ${turn.cut === "text" ? "text" : "tool-call arguments"}`,
          ),
        );
      }
      res.writeHead(200, streamHeaders(format));
      await write(
        res,
        frames
          .slice(0, at.index)
          .map((f) => f.data)
          .join("") + at.partial,
      );
      return void res.socket?.destroy();
    }
    res.writeHead(200, streamHeaders(format));
    if (turn.pace) {
      for (const frame of frames) {
        if (closed || res.destroyed) return;
        await write(res, frame.data);
        if (frame.kind === "text") await wait(turn.pace.everyMs);
      }
      return void res.end();
    }
    res.end(frames.map((f) => f.data).join(""));
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: { message: `scripted server: ${String(error)}` } });
      else res.destroy();
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;

  return {
    url,
    openaiBaseUrl: `${url}/v1`,
    openrouterBaseUrl: `${url}/openrouter/v1`,
    anthropicBaseUrl: `${url}/v1`,
    ollamaBaseUrl: `${url}/api`,
    requests,
    remaining: () =>
      typeof script === "function" ? Number.POSITIVE_INFINITY : Math.max(0, script.length - requests.length),
    close: async () => {
      closed = true;
      for (const entry of timers) {
        clearTimeout(entry.timer);
        entry.done();
      }
      timers.clear();
      const stopped = new Promise<void>((done) => server.close(() => done()));
      server.closeAllConnections();
      await stopped;
    },
  };
}

// What one turn says, with every default filled in, independent of the wire format.
interface Answer {
  id: string;
  text: string;
  reasoning: string;
  cutAtLimit: boolean;
  /** How many pieces the text streams in. */
  textPieces: number;
  toolCalls: { id: string; name: string; args: string; parsed: unknown }[];
  usage: { input: number; output: number; cached: number; cacheWrite: number | undefined; reasoning: number };
}

function normalise(turn: ScriptedTurn, request: RecordedRequest, index: number): Answer {
  const text = turn.text ?? "";
  const reasoning = turn.reasoning ?? "";
  const toolCalls = (turn.toolCalls ?? []).map((call, i) => {
    const args = typeof call.args === "string" ? call.args : JSON.stringify(call.args ?? {});
    return { id: call.id ?? `call_${index}_${i}`, name: call.name, args, parsed: parseJson(args) ?? args };
  });
  const tokens = (s: string) => Math.ceil(s.length / 4);
  const reasoningTokens = turn.usage?.reasoning ?? tokens(reasoning);
  const usage = {
    input: turn.usage?.input ?? Math.max(1, tokens(request.rawBody)),
    output:
      turn.usage?.output ??
      Math.max(
        1,
        tokens(text) + reasoningTokens + toolCalls.reduce((n, c) => n + tokens(c.name + c.args), 0),
      ),
    cached: turn.usage?.cached ?? 0,
    cacheWrite: turn.usage?.cacheWrite,
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
  };
}

function wantsStream(format: WireFormat, body: { stream?: unknown } | undefined): boolean {
  // Ollama streams unless told not to; the others only when asked.
  return format === "ollama" ? body?.stream !== false : body?.stream === true;
}

/** Several pieces, split on code points so no piece holds half a surrogate pair. */
function pieces(text: string, count = 4): string[] {
  const chars = Array.from(text);
  const size = Math.max(1, Math.ceil(chars.length / count));
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(""));
  return out;
}

interface Frame {
  data: string;
  /** Frames that carry text or tool-argument deltas, where a cut can land. */
  kind?: "text" | "tool";
}

/** Up to and including the first frame of that kind, or half of it when it is the only one, so that what it carries stays unfinished. */
function cutPoint(frames: Frame[], kind: "text" | "tool"): { index: number; partial: string } | undefined {
  const marked = frames.flatMap((f, i) => (f.kind === kind ? [i] : []));
  const first = marked[0];
  if (first === undefined) return undefined;
  const frame = frames[first]!.data;
  return marked.length > 1
    ? { index: first + 1, partial: "" }
    : { index: first, partial: frame.slice(0, Math.floor(frame.length / 2)) };
}

function streamFrames(format: WireFormat, answer: Answer, usageAsked: boolean): Frame[] {
  switch (format) {
    case "openai":
      return chatFrames(answer, usageAsked);
    case "openai-responses":
      return responsesFrames(answer);
    case "anthropic":
      return anthropicFrames(answer);
    case "ollama":
      return ollamaFrames(answer);
  }
}

function completeBody(format: WireFormat, answer: Answer): unknown {
  switch (format) {
    case "openai":
      return chatBody(answer);
    case "openai-responses":
      return responsesBody(answer, "completed");
    case "anthropic":
      return anthropicBody(answer);
    case "ollama":
      return ollamaLine(answer, {
        content: answer.text,
        thinking: answer.reasoning,
        withTools: true,
        done: true,
      });
  }
}

// --- OpenAI chat completions ---

const created = () => Math.floor(Date.now() / 1000);

function chatUsage(u: Answer["usage"]) {
  return {
    prompt_tokens: u.input,
    completion_tokens: u.output,
    total_tokens: u.input + u.output,
    prompt_tokens_details: {
      cached_tokens: u.cached,
      ...(u.cacheWrite !== undefined && { cache_write_tokens: u.cacheWrite }),
    },
    completion_tokens_details: { reasoning_tokens: u.reasoning },
  };
}

function chatFinishReason(answer: Answer): string {
  if (answer.cutAtLimit) return "length";
  return answer.toolCalls.length > 0 ? "tool_calls" : "stop";
}

function chatFrames(answer: Answer, usageAsked: boolean): Frame[] {
  const base = { id: answer.id, object: "chat.completion.chunk", created: created(), model: MODEL };
  const chunk = (delta: object, finish: string | null = null) =>
    sse({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] });
  const frames: Frame[] = [{ data: chunk({ role: "assistant", content: answer.text ? "" : null }) }];
  // `reasoning_content` is what DeepSeek-style servers send and `reasoning` what OpenRouter sends.
  for (const piece of pieces(answer.reasoning))
    frames.push({ data: chunk({ reasoning_content: piece, reasoning: piece }) });
  for (const piece of pieces(answer.text, answer.textPieces))
    frames.push({ data: chunk({ content: piece }), kind: "text" });
  answer.toolCalls.forEach((call, index) => {
    frames.push({
      data: chunk({
        tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }],
      }),
    });
    for (const piece of pieces(call.args, 3)) {
      frames.push({ data: chunk({ tool_calls: [{ index, function: { arguments: piece } }] }), kind: "tool" });
    }
  });
  frames.push({ data: chunk({}, chatFinishReason(answer)) });
  if (usageAsked) frames.push({ data: sse({ ...base, choices: [], usage: chatUsage(answer.usage) }) });
  frames.push({ data: "data: [DONE]\n\n" });
  return frames;
}

function chatBody(answer: Answer) {
  const message: Record<string, unknown> = { role: "assistant", content: answer.text || null };
  if (answer.reasoning) {
    message.reasoning_content = answer.reasoning;
    message.reasoning = answer.reasoning;
  }
  if (answer.toolCalls.length > 0) {
    message.tool_calls = answer.toolCalls.map((c) => ({
      id: c.id,
      type: "function",
      function: { name: c.name, arguments: c.args },
    }));
  }
  return {
    id: answer.id,
    object: "chat.completion",
    created: created(),
    model: MODEL,
    choices: [
      {
        index: 0,
        message,
        logprobs: null,
        finish_reason: chatFinishReason(answer),
      },
    ],
    usage: chatUsage(answer.usage),
  };
}

// --- OpenAI Responses ---

function responsesUsage(u: Answer["usage"]) {
  return {
    input_tokens: u.input,
    input_tokens_details: {
      cached_tokens: u.cached,
      ...(u.cacheWrite !== undefined && { cache_write_tokens: u.cacheWrite }),
    },
    output_tokens: u.output,
    output_tokens_details: { reasoning_tokens: u.reasoning },
    total_tokens: u.input + u.output,
  };
}

function responsesItems(answer: Answer) {
  const items: Record<string, unknown>[] = [];
  if (answer.reasoning) {
    items.push({
      type: "reasoning",
      id: `rs_${answer.id}`,
      summary: [{ type: "summary_text", text: answer.reasoning }],
    });
  }
  if (answer.text) {
    items.push({
      type: "message",
      id: `msg_${answer.id}`,
      status: "completed",
      role: "assistant",
      content: [{ type: "output_text", text: answer.text, annotations: [], logprobs: [] }],
    });
  }
  for (const call of answer.toolCalls) {
    items.push({
      type: "function_call",
      id: `fc_${call.id}`,
      call_id: call.id,
      name: call.name,
      arguments: call.args,
      status: "completed",
    });
  }
  return items;
}

/** `completed` stands for how the answer ends: completed, or incomplete at the length limit. */
function responsesBody(answer: Answer, status: "in_progress" | "completed") {
  const done = status === "completed";
  return {
    id: `resp_${answer.id}`,
    object: "response",
    created_at: created(),
    status: done && answer.cutAtLimit ? "incomplete" : status,
    model: MODEL,
    output: done ? responsesItems(answer) : [],
    usage: done ? responsesUsage(answer.usage) : null,
    incomplete_details: done && answer.cutAtLimit ? { reason: "max_output_tokens" } : null,
    error: null,
  };
}

function responsesFrames(answer: Answer): Frame[] {
  let sequence = 0;
  const event = (type: string, fields: object, kind?: Frame["kind"]): Frame => ({
    data: `event: ${type}\n${sse({ type, sequence_number: sequence++, ...fields })}`,
    ...(kind && { kind }),
  });
  const frames: Frame[] = [
    event("response.created", { response: responsesBody(answer, "in_progress") }),
    event("response.in_progress", { response: responsesBody(answer, "in_progress") }),
  ];
  responsesItems(answer).forEach((item, output_index) => {
    const id = item.id as string;
    if (item.type === "reasoning") {
      const summary_index = 0;
      frames.push(event("response.output_item.added", { output_index, item: { ...item, summary: [] } }));
      frames.push(
        event("response.reasoning_summary_part.added", {
          item_id: id,
          output_index,
          summary_index,
          part: { type: "summary_text", text: "" },
        }),
      );
      for (const delta of pieces(answer.reasoning)) {
        frames.push(
          event("response.reasoning_summary_text.delta", { item_id: id, output_index, summary_index, delta }),
        );
      }
      frames.push(
        event("response.reasoning_summary_text.done", {
          item_id: id,
          output_index,
          summary_index,
          text: answer.reasoning,
        }),
      );
      frames.push(
        event("response.reasoning_summary_part.done", {
          item_id: id,
          output_index,
          summary_index,
          part: { type: "summary_text", text: answer.reasoning },
        }),
      );
    } else if (item.type === "message") {
      const content_index = 0;
      const part = { type: "output_text", text: "", annotations: [] };
      frames.push(
        event("response.output_item.added", {
          output_index,
          item: { ...item, status: "in_progress", content: [] },
        }),
      );
      frames.push(event("response.content_part.added", { item_id: id, output_index, content_index, part }));
      for (const delta of pieces(answer.text, answer.textPieces)) {
        frames.push(
          event(
            "response.output_text.delta",
            { item_id: id, output_index, content_index, delta, logprobs: [] },
            "text",
          ),
        );
      }
      frames.push(
        event("response.output_text.done", {
          item_id: id,
          output_index,
          content_index,
          text: answer.text,
          logprobs: [],
        }),
      );
      frames.push(
        event("response.content_part.done", {
          item_id: id,
          output_index,
          content_index,
          part: { ...part, text: answer.text },
        }),
      );
    } else {
      const args = item.arguments as string;
      frames.push(
        event("response.output_item.added", {
          output_index,
          item: { ...item, arguments: "", status: "in_progress" },
        }),
      );
      for (const delta of pieces(args, 3)) {
        frames.push(
          event("response.function_call_arguments.delta", { item_id: id, output_index, delta }, "tool"),
        );
      }
      frames.push(
        event("response.function_call_arguments.done", { item_id: id, output_index, arguments: args }),
      );
    }
    frames.push(event("response.output_item.done", { output_index, item }));
  });
  const last = answer.cutAtLimit ? "response.incomplete" : "response.completed";
  frames.push(event(last, { response: responsesBody(answer, "completed") }));
  return frames;
}

// --- Anthropic messages ---

function anthropicUsage(u: Answer["usage"]) {
  const cacheWrite = u.cacheWrite ?? 0;
  return {
    input_tokens: Math.max(0, u.input - u.cached - cacheWrite),
    cache_creation_input_tokens: cacheWrite,
    cache_read_input_tokens: u.cached,
    output_tokens: u.output,
  };
}

// Anthropic's signature is opaque to clients; any stable text stands in for it.
const signatureOf = (answer: Answer) => `sig_${answer.id}`;

function anthropicContent(answer: Answer) {
  const content: Record<string, unknown>[] = [];
  if (answer.reasoning)
    content.push({ type: "thinking", thinking: answer.reasoning, signature: signatureOf(answer) });
  if (answer.text) content.push({ type: "text", text: answer.text });
  // The wire carries input as an object, so unparsable arguments can only travel as a JSON string.
  for (const call of answer.toolCalls)
    content.push({ type: "tool_use", id: call.id, name: call.name, input: call.parsed });
  return content;
}

function anthropicStopReason(answer: Answer): string {
  if (answer.cutAtLimit) return "max_tokens";
  return answer.toolCalls.length > 0 ? "tool_use" : "end_turn";
}

function anthropicBody(answer: Answer) {
  return {
    id: `msg_${answer.id}`,
    type: "message",
    role: "assistant",
    model: MODEL,
    content: anthropicContent(answer),
    stop_reason: anthropicStopReason(answer),
    stop_sequence: null,
    usage: anthropicUsage(answer.usage),
  };
}

function anthropicFrames(answer: Answer): Frame[] {
  const event = (type: string, fields: object, kind?: Frame["kind"]): Frame => ({
    data: `event: ${type}\n${sse({ type, ...fields })}`,
    ...(kind && { kind }),
  });
  const usage = anthropicUsage(answer.usage);
  const frames: Frame[] = [
    event("message_start", {
      message: {
        ...anthropicBody(answer),
        content: [],
        stop_reason: null,
        usage: { ...usage, output_tokens: 1 },
      },
    }),
    event("ping", {}),
  ];
  let index = 0;
  if (answer.reasoning) {
    frames.push(event("content_block_start", { index, content_block: { type: "thinking", thinking: "" } }));
    for (const thinking of pieces(answer.reasoning)) {
      frames.push(event("content_block_delta", { index, delta: { type: "thinking_delta", thinking } }));
    }
    frames.push(
      event("content_block_delta", {
        index,
        delta: { type: "signature_delta", signature: signatureOf(answer) },
      }),
    );
    frames.push(event("content_block_stop", { index: index++ }));
  }
  if (answer.text) {
    frames.push(event("content_block_start", { index, content_block: { type: "text", text: "" } }));
    for (const text of pieces(answer.text, answer.textPieces)) {
      frames.push(event("content_block_delta", { index, delta: { type: "text_delta", text } }, "text"));
    }
    frames.push(event("content_block_stop", { index: index++ }));
  }
  for (const call of answer.toolCalls) {
    frames.push(
      event("content_block_start", {
        index,
        content_block: { type: "tool_use", id: call.id, name: call.name, input: {} },
      }),
    );
    for (const partial_json of pieces(call.args, 3)) {
      frames.push(
        event("content_block_delta", { index, delta: { type: "input_json_delta", partial_json } }, "tool"),
      );
    }
    frames.push(event("content_block_stop", { index: index++ }));
  }
  frames.push(
    event("message_delta", {
      delta: { stop_reason: anthropicStopReason(answer), stop_sequence: null },
      usage,
    }),
  );
  frames.push(event("message_stop", {}));
  return frames;
}

// --- Ollama chat ---

function ollamaLine(
  answer: Answer,
  part: { content: string; thinking?: string; withTools?: boolean; done: boolean },
): Record<string, unknown> {
  const message: Record<string, unknown> = { role: "assistant", content: part.content };
  if (part.thinking) message.thinking = part.thinking;
  if (part.withTools && answer.toolCalls.length > 0) {
    // Ollama sends arguments as an object; unparsable arguments can only travel as a JSON string.
    message.tool_calls = answer.toolCalls.map((c) => ({
      id: c.id,
      function: { name: c.name, arguments: c.parsed },
    }));
  }
  const line: Record<string, unknown> = {
    model: MODEL,
    created_at: new Date().toISOString(),
    message,
    done: part.done,
  };
  if (part.done) {
    Object.assign(line, {
      done_reason: answer.cutAtLimit ? "length" : "stop",
      total_duration: 1,
      load_duration: 1,
      prompt_eval_count: answer.usage.input,
      prompt_eval_duration: 1,
      eval_count: answer.usage.output,
      eval_duration: 1,
    });
  }
  return line;
}

function ollamaFrames(answer: Answer): Frame[] {
  const frames: Frame[] = [];
  const line = (value: object, kind?: Frame["kind"]): Frame => ({
    data: `${JSON.stringify(value)}\n`,
    ...(kind && { kind }),
  });
  for (const thinking of pieces(answer.reasoning))
    frames.push(line(ollamaLine(answer, { content: "", thinking, done: false })));
  for (const content of pieces(answer.text, answer.textPieces))
    frames.push(line(ollamaLine(answer, { content, done: false }), "text"));
  // Ollama delivers tool calls whole, in one line.
  if (answer.toolCalls.length > 0)
    frames.push(line(ollamaLine(answer, { content: "", withTools: true, done: false }), "tool"));
  frames.push(line(ollamaLine(answer, { content: "", done: true })));
  return frames;
}

// --- plumbing ---

function errorBody(format: WireFormat, status: number, message: string): unknown {
  switch (format) {
    case "anthropic":
      return { type: "error", error: { type: anthropicErrorType(status), message } };
    case "ollama":
      return { error: message };
    default:
      return { error: { message, type: openaiErrorType(status), param: null, code: null } };
  }
}

function anthropicErrorType(status: number): string {
  const types: Record<number, string> = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    529: "overloaded_error",
  };
  return types[status] ?? "api_error";
}

function openaiErrorType(status: number): string {
  if (status === 429) return "rate_limit_exceeded";
  if (status === 401) return "invalid_request_error";
  return status >= 500 ? "server_error" : "invalid_request_error";
}

function streamHeaders(format: WireFormat): Record<string, string> {
  return format === "ollama"
    ? { "content-type": "application/x-ndjson" }
    : { "content-type": "text/event-stream", "cache-control": "no-cache" };
}

function sse(value: unknown): string {
  return `data: ${JSON.stringify(value)}\n\n`;
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

function write(res: ServerResponse, data: string): Promise<void> {
  return new Promise((done) => (data ? res.write(data, () => done()) : done()));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((done, fail) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => done(Buffer.concat(chunks).toString("utf8")));
    req.on("error", fail);
  });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function flattenHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

// As a process, for end-to-end tests driven from outside Node: `node scriptedServer.js script.json`.
if (process.argv[1] && import.meta.url === pathToFileURL(resolvePath(process.argv[1])).href) {
  const script = JSON.parse(readFileSync(process.argv[2] ?? "", "utf8")) as ScriptedTurn[];
  const server = await startScriptedServer(script);
  process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);
}
