import { APICallError, type LanguageModelV4, type SharedV4Warning } from "@ai-sdk/provider";
import type { ModelMessage, SystemModelMessage } from "ai";
import type { TokenCounts } from "../events/types.js";
import { Answer, type ModelToolCall } from "./answer.js";
import { streamCall, type ToolDefinition } from "./call.js";
import { IdleError, ProviderError, StreamError } from "./errors.js";
import { PROVIDER_SPECS, type ProviderSpec, parseModelId } from "./providers.js";

export type { ModelToolCall } from "./answer.js";

export type { ToolDefinition } from "./call.js";

export interface ModelCallRequest {
  model: LanguageModelV4;
  modelId: string;
  system: string;
  messages: ModelMessage[];
  /** Native tool calling; omitted for text-mode models, whose tools are described in `system`. */
  tools?: readonly ToolDefinition[];
  /** Ask for JSON of this shape; providers that can enforce it (json_schema) are told to. */
  responseSchema?: { name: string; schema: Record<string, unknown> };
  signal: AbortSignal;
  /** The longest the stream may go without sending anything: the call's idle bound. */
  timeoutMs: number;
  /** The answer's cap in tokens, sent to the provider when set (max_tokens, max_output_tokens, num_predict). */
  maxOutputTokens?: number | undefined;
  /** The context the server should run the request in, for a provider that takes one (Ollama's num_ctx). */
  contextTokens?: number | undefined;
  /**
   * The call's bound on output, whether or not the server keeps to `maxOutputTokens`: past this
   * many characters of text, reasoning and tool-call arguments, the answer is cut off there and
   * ends as if at its length limit.
   */
  maxOutputChars: number;
  maxRetries: number;
  retryBaseMs: number;
  onTextDelta?: (text: string) => void;
  /** The first token of an attempt's answer (text, reasoning or a tool call) arrived: the prompt has been read. */
  onFirstToken?: () => void;
  onRetry?: (info: { attempt: number; delayMs: number; reason: string }) => void;
}

export interface ModelCallResult {
  /** What the SDK noted about the request (a setting the provider ignores), as sentences. */
  warnings: string[];
  text: string;
  /** What the model thought before it answered, where the provider sends it ("" where not). */
  reasoning: string;
  toolCalls: ModelToolCall[];
  usage: TokenCounts;
  /** The provider reported no usage: `usage` is estimated from the sizes of the request and the answer. */
  usageEstimated: boolean;
  /** The answer passed `maxOutputChars` and was cut off there (`finishReason` is then "length"). */
  outputCapped: boolean;
  finishReason: string;
  durationMs: number;
  /** Time spent producing output, from the first streamed token to the end. */
  generationMs: number;
}

// The SDK would print its warnings on stderr, over the terminal UI; they come back with each
// call's result instead, for the session to report once each as its own events.
(globalThis as { AI_SDK_LOG_WARNINGS?: unknown }).AI_SDK_LOG_WARNINGS = false;

type SdkWarning = SharedV4Warning;

/**
 * A server without JSON-schema output ignores the schema; that concerns nobody, as the schema is
 * in the prompt too and every structured answer is repaired and validated anyway.
 */
function isResponseFormat(warning: SdkWarning): boolean {
  return warning.type === "unsupported" && warning.feature === "responseFormat";
}

function describeWarning(warning: SdkWarning): string {
  switch (warning.type) {
    case "unsupported":
      return `${warning.feature} is not supported by this model or server${warning.details ? `: ${warning.details}` : ""}; it was left out.`;
    case "compatibility":
      return `${warning.feature} runs in a compatibility mode${warning.details ? `: ${warning.details}` : ""}.`;
    case "deprecated":
      return `${warning.setting} is deprecated: ${warning.message}`;
    default:
      return "message" in warning ? String(warning.message) : JSON.stringify(warning);
  }
}

const EPHEMERAL = { anthropic: { cacheControl: { type: "ephemeral" } } };

/**
 * Anthropic caches a prompt prefix only up to blocks marked as breakpoints: the system prompt
 * (which with the tools before it never changes) and the newest message, so the next request,
 * which extends this one, reads everything up to here from the cache. Other providers cache
 * prefixes on their own.
 */
function withCacheBreakpoints(
  modelId: string,
  system: string,
  messages: ModelMessage[],
): { system: string | SystemModelMessage; messages: ModelMessage[] } {
  const spec: ProviderSpec = PROVIDER_SPECS[parseModelId(modelId).provider];
  if (!spec.cacheBreakpoints) return { system, messages };
  const last = messages.at(-1);
  return {
    system: { role: "system", content: system, providerOptions: EPHEMERAL },
    messages: last ? [...messages.slice(0, -1), { ...last, providerOptions: EPHEMERAL }] : messages,
  };
}

/** The cap on the answer's tokens, and the context to run in, as the provider takes them. */
function sizeSettings(request: ModelCallRequest): {
  maxOutputTokens?: number;
  providerOptions?: Record<string, Record<string, unknown>>;
} {
  const tokens = request.maxOutputTokens;
  const spec: ProviderSpec = PROVIDER_SPECS[parseModelId(request.modelId).provider];
  const providerOptions = spec.requestOptions?.({
    maxOutputTokens: tokens,
    contextTokens: request.contextTokens,
  });
  return {
    ...(tokens ? { maxOutputTokens: tokens } : {}),
    ...(providerOptions ? { providerOptions } : {}),
  };
}

/** A provider asking to wait longer than this is waited on this long; the retry then says whether it was enough. */
const MAX_RETRY_DELAY_MS = 60_000;

/** A wait that Ctrl-C ends at once. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason ?? new Error("aborted"));
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason ?? new Error("aborted"));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

const RETRYABLE_STATUS = new Set([408, 409, 425, 429, 500, 502, 503, 504, 529]);

function retryAfterMs(error: unknown): number | undefined {
  if (!APICallError.isInstance(error)) return undefined;
  const headers = error.responseHeaders ?? {};
  const ms = headers["retry-after-ms"];
  if (ms && Number.isFinite(Number(ms))) return Number(ms);
  const after = headers["retry-after"];
  if (!after) return undefined;
  const seconds = Number(after);
  if (Number.isFinite(seconds)) return seconds * 1000;
  const date = Date.parse(after);
  return Number.isFinite(date) ? Math.max(0, date - Date.now()) : undefined;
}

/** Why an attempt failed, and whether another attempt could succeed. */
function classify(error: unknown, timedOut: boolean): { retryable: boolean; reason: string } {
  if (timedOut) return { retryable: true, reason: "no data within the request timeout" };
  // An error the server sent mid-answer is worth another attempt unless it says otherwise.
  if (error instanceof StreamError) {
    const status = error.statusCode;
    const retryable = error.isRetryable || status === undefined || RETRYABLE_STATUS.has(status);
    return { retryable, reason: `the server reported: ${error.message}` };
  }
  if (APICallError.isInstance(error)) {
    const status = error.statusCode;
    // A 200 that fails is a stream cut off mid-way: the response started, then the body broke.
    if (status === 200) return { retryable: true, reason: "stream cut off" };
    if (status !== undefined) {
      return { retryable: error.isRetryable || RETRYABLE_STATUS.has(status), reason: `HTTP ${status}` };
    }
    return { retryable: true, reason: error.message };
  }
  const message = error instanceof Error ? `${error.message} ${String(error.cause ?? "")}` : String(error);
  if (
    /ECONNRESET|ECONNREFUSED|EPIPE|socket|terminated|fetch failed|network|other side closed/i.test(message)
  ) {
    return { retryable: true, reason: "connection lost" };
  }
  return { retryable: false, reason: message };
}

/**
 * One model turn, streamed, with retries. Output a retry repeats is not shown twice: only text
 * beyond what the person already saw is passed on. Tool calls are taken only from a stream that
 * finished, so a call cut off half-way is never run.
 */
export async function callModel(request: ModelCallRequest): Promise<ModelCallResult> {
  const prompt = withCacheBreakpoints(request.modelId, request.system, request.messages);
  let shown = "";
  for (let attempt = 0; ; attempt++) {
    // An idle timeout, not a total one: a long answer that keeps streaming is not a hang. Each
    // part only notes the time; the one timer looks at it when it fires, instead of a timer
    // being cleared and set again for every streamed token.
    const idle = new AbortController();
    let lastPart = performance.now();
    const watch = (delayMs: number): NodeJS.Timeout =>
      setTimeout(() => {
        const quiet = performance.now() - lastPart;
        if (quiet >= request.timeoutMs) idle.abort(new Error("idle"));
        else idleTimer = watch(request.timeoutMs - quiet);
      }, delayMs);
    let idleTimer = watch(request.timeoutMs);
    const stillAlive = () => {
      lastPart = performance.now();
    };
    const signal = AbortSignal.any([request.signal, idle.signal]);
    // A retry shows only what goes beyond what was already shown, while it repeats it; when it
    // says something else, the person is told the answer starts over rather than shown a splice.
    let diverged = attempt === 0;
    const started = performance.now();
    const answer = new Answer(request.maxOutputChars);
    let tokenSeen = false;
    try {
      // The provider's model is called directly (call.ts): the same request, wire and stream
      // parsing, without the layers of the \`ai\` package around them, which cost time on every
      // turn and in start-up.
      const stream = await streamCall({
        model: request.model,
        system: prompt.system,
        messages: prompt.messages,
        ...(request.tools ? { tools: request.tools } : {}),
        ...(request.responseSchema ? { responseFormat: request.responseSchema } : {}),
        ...sizeSettings(request),
        abortSignal: signal,
      });
      const warnings: string[] = [];
      for await (const part of stream) {
        stillAlive();
        if (part.type === "model-call-start") {
          warnings.push(
            ...part.warnings
              .filter((w) => !(request.responseSchema && isResponseFormat(w)))
              .map(describeWarning),
          );
        }
        const more = answer.take(part);
        if (!tokenSeen && answer.firstTokenAt !== undefined) {
          tokenSeen = true;
          request.onFirstToken?.();
        }
        if (part.type === "text-delta") {
          const { text } = answer;
          if (!diverged && !shown.startsWith(text) && !text.startsWith(shown)) {
            diverged = true;
            request.onTextDelta?.(`\n[the answer restarts after a retry]\n${text}`);
            shown = text;
          } else if (text.length > shown.length) {
            const fresh = text.slice(shown.length);
            shown = text;
            request.onTextDelta?.(fresh);
          }
        }
        // Leaving the loop cancels the stream, and with it the request.
        if (!more) break;
      }
      if (signal.aborted) throw signal.reason ?? new Error("aborted");
      clearTimeout(idleTimer);
      const ended = performance.now();
      return {
        warnings,
        text: answer.text,
        reasoning: answer.reasoning,
        toolCalls: answer.toolCalls,
        usage: answer.usageOr({ system: request.system, messages: request.messages, tools: request.tools }),
        usageEstimated: !answer.usageReported,
        outputCapped: answer.capped,
        finishReason: answer.finishReason,
        durationMs: ended - started,
        generationMs: ended - (answer.firstTokenAt ?? started),
      };
    } catch (error) {
      clearTimeout(idleTimer);
      if (request.signal.aborted) throw request.signal.reason ?? error;
      const { retryable, reason } = classify(error, idle.signal.aborted);
      if (!retryable || attempt >= request.maxRetries) {
        const cause = idle.signal.aborted ? new IdleError(request.timeoutMs, error) : error;
        throw new ProviderError(request.modelId, cause, { retryable, attempts: attempt + 1 });
      }
      const backoff = request.retryBaseMs * 2 ** attempt;
      const delayMs = Math.round(
        Math.min(retryAfterMs(error) ?? backoff / 2 + Math.random() * (backoff / 2), MAX_RETRY_DELAY_MS),
      );
      request.onRetry?.({ attempt: attempt + 1, delayMs, reason });
      await sleep(delayMs, request.signal);
    }
  }
}
