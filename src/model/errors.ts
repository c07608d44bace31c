import { APICallError } from "@ai-sdk/provider";
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

function hintFor(status: number | undefined, modelId: string): string {
  const provider = providerOf(modelId);
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
    const status = APICallError.isInstance(cause) ? cause.statusCode : undefined;
    const detail = cause instanceof Error ? cause.message : String(cause);
    const tries = info.attempts > 1 ? ` after ${info.attempts} attempts` : "";
    super(`Model call to ${modelId} failed${tries}: ${detail}\n${hintFor(status, modelId)}`, { cause });
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
