import { APICallError } from "@ai-sdk/provider";
import { formatDuration } from "../platform/format.js";
import { PROVIDER_SPECS } from "./providers.js";

function providerOf(modelId: string): string {
  return modelId.split("/")[0] ?? modelId;
}

function keyVariable(provider: string): string {
  return (
    (PROVIDER_SPECS as Record<string, { keyEnv: string }>)[provider]?.keyEnv ??
    "the provider's API key variable"
  );
}

const RETRYABLE = (status: number | undefined) =>
  status !== undefined && (status === 408 || status === 409 || status === 429 || status >= 500);

/** What a server's own words say of an error that has no status: the few it writes often. */
const BY_MESSAGE: Record<string, number> = {
  overloaded: 503,
  "overloaded error": 503,
  "model overloaded": 503,
  "internal server error": 500,
  "service unavailable": 503,
};

const asRecord = (value: unknown) =>
  typeof value === "object" && value !== null ? (value as Record<string, unknown>) : undefined;

function httpStatus(...values: unknown[]): number | undefined {
  for (const value of values) {
    const status = typeof value === "string" && /^\d{3}$/.test(value) ? Number(value) : value;
    if (typeof status === "number" && Number.isInteger(status) && status >= 400 && status <= 599)
      return status;
  }
  return undefined;
}

/**
 * An error a server sent inside its answer's stream (an overloaded model, a failure half-way),
 * as the provider handed it over: its message, and the status and retryability it says or that
 * its words imply.
 */
export class StreamError extends Error {
  readonly statusCode: number | undefined;
  readonly isRetryable: boolean;
  readonly data: unknown;

  constructor(message: string, statusCode: number | undefined, isRetryable: boolean, data: unknown) {
    super(message);
    this.name = "StreamError";
    this.statusCode = statusCode;
    this.isRetryable = isRetryable;
    this.data = data;
  }

  /** What a stream's error part holds, as an Error: one it already is, else a StreamError. */
  static from(error: unknown): Error {
    if (error instanceof Error) return error;
    const outer = asRecord(error) ?? {};
    const details = asRecord(asRecord(outer.response)?.error) ?? asRecord(outer.error) ?? outer;
    const message = typeof details.message === "string" ? details.message : JSON.stringify(error);
    const implied = BY_MESSAGE[message.trim().toLowerCase()];
    const status =
      httpStatus(
        details.statusCode,
        outer.statusCode,
        details.status,
        outer.status,
        details.code,
        outer.code,
      ) ?? implied;
    const explicit = [details.isRetryable, outer.isRetryable, details.is_retryable, outer.is_retryable].find(
      (value) => typeof value === "boolean",
    ) as boolean | undefined;
    return new StreamError(message, status, explicit ?? (implied !== undefined || RETRYABLE(status)), error);
  }
}

/** The stream sent nothing for the request timeout, on every attempt. */
export class IdleError extends Error {
  constructor(timeoutMs: number, cause: unknown) {
    super(`no data for ${formatDuration(timeoutMs)}`, { cause });
    this.name = "IdleError";
  }
}

function hintFor(cause: unknown, status: number | undefined, modelId: string): string {
  const provider = providerOf(modelId);
  if (cause instanceof StreamError)
    return `${provider} reported an error while answering: try again later, or another model with --model.`;
  if (cause instanceof IdleError)
    return `${provider} stopped sending: try again later, or raise request_timeout_ms for a slow server.`;
  switch (status) {
    case 401:
    case 403:
      return `${provider} rejected the API key: check ${keyVariable(provider)} (or the variable providers.${provider}.api_key_env names) and that the key may use ${modelId}.`;
    case 404:
      return `${provider} does not know the model in ${modelId}: check the name, e.g. with the provider's model list.`;
    case 400:
      return `${provider} rejected the request: check the model name (${modelId}) and its options.`;
    case 429:
      return `${provider} kept rate-limiting the requests: wait and retry, or use another model with --model.`;
    default:
      return status && status >= 500
        ? `${provider} is failing (HTTP ${status}): try again later, or another provider with --model.`
        : `could not reach ${provider}: check the network and --base-url.`;
  }
}

/** A model call that failed for good, with what the person can do about it. */
export class ProviderError extends Error {
  readonly modelId: string;
  readonly status: number | undefined;
  readonly retryable: boolean;
  readonly attempts: number;

  constructor(modelId: string, cause: unknown, info: { retryable: boolean; attempts: number }) {
    const status =
      APICallError.isInstance(cause) || cause instanceof StreamError ? cause.statusCode : undefined;
    const detail = cause instanceof Error ? cause.message : String(cause);
    const tries = info.attempts > 1 ? ` after ${info.attempts} attempts` : "";
    super(`Model call to ${modelId} failed${tries}: ${detail}\n${hintFor(cause, status, modelId)}`, {
      cause,
    });
    this.name = "ProviderError";
    this.modelId = modelId;
    this.status = status;
    this.retryable = info.retryable;
    this.attempts = info.attempts;
  }

  /** Bad key, unknown model, bad request: configuration the person must fix (exit code 2). */
  get isConfiguration(): boolean {
    return this.status !== undefined && [400, 401, 403, 404].includes(this.status);
  }
}
