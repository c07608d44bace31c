import type { Phase } from "../events/types.js";
import { callModel, type ModelCallRequest, type ModelCallResult } from "../model/stream.js";
import type { AgentSession, ModelHandle } from "./session.js";

export type TurnRequest = Pick<
  ModelCallRequest,
  "system" | "messages" | "tools" | "responseSchema" | "onTextDelta"
>;

/**
 * One model call as a session makes it: its cancellation, timeouts and retry policy, each retry
 * an event, and the call's tokens and dollars booked under `phase` as soon as it ends.
 */
export async function callAndBook(
  session: AgentSession,
  model: ModelHandle,
  phase: Phase,
  request: TurnRequest,
): Promise<ModelCallResult> {
  const reply = await callModel({
    ...request,
    model: model.model,
    modelId: model.id,
    signal: session.signal,
    timeoutMs: session.config.request_timeout_ms,
    maxRetries: session.config.retries.max,
    retryBaseMs: session.config.retries.base_ms,
    onRetry: ({ attempt, delayMs, reason }) =>
      session.bus.emit({ type: "retry", attempt, delay_ms: delayMs, reason }),
  });
  session.ledger.record({
    phase,
    modelId: model.id,
    counts: reply.usage,
    price: model.info.price,
    durationMs: reply.durationMs,
    generationMs: reply.generationMs,
  });
  return reply;
}
