// A model server on 127.0.0.1 that speaks the real OpenAI (chat completions and Responses),
// Anthropic and Ollama wire formats, so the real AI SDK providers run unmodified, and answers
// each model request with the next turn of a script: the demo's recorded model, and the tests'
// scripted one. Both OpenAI paths are served because `openai(id)` uses /responses while
// `openai.chat(id)`, openai-compatible and OpenRouter use /chat/completions.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { anthropicBody, anthropicErrorFrame, anthropicFrames } from "./anthropic.js";
import { ollamaEmbeddings, openaiEmbeddings } from "./embeddings.js";
import { modelInfoAnswer, type ServedModels } from "./modelInfo.js";
import { ollamaErrorFrame, ollamaFrames, ollamaLine } from "./ollama.js";
import {
  chatBody,
  chatErrorFrame,
  chatFrames,
  responsesBody,
  responsesErrorFrame,
  responsesFrames,
} from "./openai.js";
import {
  type Answer,
  cutPoint,
  type Frame,
  framesThrough,
  MODEL,
  normalise,
  parseJson,
  type RecordedRequest,
  type Script,
  type ScriptedServer,
  type ScriptedTurn,
  type WireFormat,
  wantsStream,
} from "./turns.js";

const routes: Record<string, WireFormat> = {
  "/v1/chat/completions": "openai",
  "/openrouter/v1/chat/completions": "openai",
  "/v1/responses": "openai-responses",
  "/v1/messages": "anthropic",
  "/api/chat": "ollama",
};

/** Embeddings, from the deterministic stand-in of embeddings.ts, in OpenAI's and Ollama's formats. */
const EMBEDDING_ROUTES: Record<string, (body: { input?: unknown; model?: string } | undefined) => unknown> = {
  "/v1/embeddings": openaiEmbeddings,
  "/api/embed": ollamaEmbeddings,
};

export interface ScriptedServerOptions {
  /** Told of each request as it arrives, before it is answered (a log another process reads). */
  onRequest?: (request: RecordedRequest) => void;
  /** Play a local server that describes its models at its own endpoints (Ollama's /api/show, llama.cpp's /props, …). */
  models?: ServedModels;
}

export async function startScriptedServer(
  script: Script,
  options: ScriptedServerOptions = {},
): Promise<ScriptedServer> {
  const requests: RecordedRequest[] = [];
  const embeddingRequests: ScriptedServer["embeddingRequests"] = [];
  const infoRequests: string[] = [];
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
    const info = modelInfoAnswer(options.models, req.method ?? "GET", path, parseJson(rawBody) as never);
    if (info) {
      infoRequests.push(`${req.method} ${path}`);
      return sendJson(res, info.status, info.body);
    }
    if (req.method === "GET" && path === "/api/tags") {
      return sendJson(res, 200, {
        models: [{ name: MODEL, model: MODEL, modified_at: new Date().toISOString() }],
      });
    }
    const embed = req.method === "POST" ? EMBEDDING_ROUTES[path] : undefined;
    if (embed) {
      const body = parseJson(rawBody) as { input?: unknown; model?: string } | undefined;
      const input = body?.input;
      embeddingRequests.push({
        path,
        model: String(body?.model ?? ""),
        inputs: Array.isArray(input) ? input.length : 1,
      });
      return sendJson(res, 200, embed(body));
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
    options.onRequest?.(request);

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
    const refuse = (what: string) =>
      sendJson(res, 500, errorBody(format, 500, `scripted server: turn ${request.turnIndex} ${what}`));
    if (turn.endless) {
      const kind = turn.endless.in ?? "text";
      const head = framesThrough(frames, kind);
      const more = endlessFrames(format, turn.endless.chunk, kind, request);
      const fits =
        kind === "text"
          ? head !== undefined
          : answer.toolCalls.length === 1 && !answer.text && !answer.reasoning;
      if (format === "ollama" && kind === "tool")
        return refuse("streams endless tool-call arguments, which Ollama sends whole");
      if (!fits || !head || !more)
        return refuse(
          `streams endless ${kind} but ${kind === "text" ? "has no text" : "has text or not one tool call"}`,
        );
      res.writeHead(200, streamHeaders(format));
      await write(res, head.map((f) => f.data).join(""));
      while (!closed && !res.destroyed) {
        await write(res, more);
        await (turn.endless.everyMs ? wait(turn.endless.everyMs) : new Promise((next) => setImmediate(next)));
      }
      return;
    }
    if (turn.streamError) {
      const said = framesThrough(frames, "tool") ?? framesThrough(frames, "text") ?? frames.slice(0, 1);
      const { message, type } = turn.streamError;
      res.writeHead(200, streamHeaders(format));
      return void res.end([...said, errorFrame(format, message, type)].map((f) => f.data).join(""));
    }
    if (turn.cut) {
      const at = cutPoint(frames, turn.cut);
      if (at === undefined)
        return refuse(
          `cuts mid-${turn.cut} but streams no ${turn.cut === "text" ? "text" : "tool-call arguments"}`,
        );
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
    embeddingRequests,
    infoRequests,
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

/** More of an endless answer: the frames that say `chunk` as text, or as its one tool call's arguments. */
function endlessFrames(
  format: WireFormat,
  chunk: string,
  kind: "text" | "tool",
  request: RecordedRequest,
): string | undefined {
  const turn: ScriptedTurn =
    kind === "text"
      ? { text: chunk, pace: { pieces: 1, everyMs: 0 } }
      : { toolCalls: [{ name: "_", args: chunk }] };
  const frames = streamFrames(format, normalise(turn, request, request.turnIndex), false).filter(
    (frame) => frame.kind === kind,
  );
  return frames.length > 0 ? frames.map((frame) => frame.data).join("") : undefined;
}

function errorFrame(format: WireFormat, message: string, type?: string): Frame {
  switch (format) {
    case "openai":
      return chatErrorFrame(message, type);
    case "openai-responses":
      return responsesErrorFrame(message, type);
    case "anthropic":
      return anthropicErrorFrame(message, type);
    case "ollama":
      return ollamaErrorFrame(message);
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

function flattenHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

// As a process, for end-to-end tests driven from outside Node: `node scriptedServer.js script.json`.
