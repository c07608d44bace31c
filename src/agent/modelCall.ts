import type { Phase } from "../events/types.js";
import { callModel, type ModelCallRequest, type ModelCallResult } from "../model/stream.js";
import { prose } from "../platform/prose.js";
import type { ModelHandle } from "./session.js";
import type { Turn } from "./turn.js";

export type TurnRequest = Pick<
  ModelCallRequest,
  "system" | "messages" | "tools" | "responseSchema" | "onTextDelta"
>;

/**
 * One model call as a turn makes it: its cancellation, timeouts and retry policy, each retry
 * an event, and the call's tokens and dollars booked under `phase` as soon as it ends.
 */
export async function callAndBook(
  turn: Turn,
  model: ModelHandle,
  phase: Phase,
  request: TurnRequest,
): Promise<ModelCallResult> {
  const { config, bus, ledger, debug } = turn.session;
  debug?.request(phase, { ...request, modelId: model.id });
  const reply = await callModel({
    ...request,
    model: model.model,
    modelId: model.id,
    signal: turn.signal,
    timeoutMs: config.request_timeout_ms,
    maxRetries: config.retries.max,
    retryBaseMs: config.retries.base_ms,
    onRetry: ({ attempt, delayMs, reason }) =>
      bus.emit({ type: "retry", attempt, delay_ms: delayMs, reason }),
  }).catch((error: unknown) => {
    debug?.failure(phase, model.id, error);
    throw error;
  });
  debug?.response(phase, model.id, reply);
  for (const warning of reply.warnings) turn.session.warnOnce(`${model.id}: ${warning}`);
  ledger.record({
    phase,
    modelId: model.id,
    counts: reply.usage,
    price: model.info.price,
    durationMs: reply.durationMs,
    generationMs: reply.generationMs,
  });
  return reply;
}

const ADVISOR = prose(new URL("./prompts/advisor.md", import.meta.url));

/** The `consult` tool: one question to the strong model, booked under execution. */
export async function consultStrongModel(turn: Turn, question: string): Promise<string> {
  const strong = await turn.session.modelFor("strong");
  const reply = await callAndBook(turn, strong, "execution", {
    system: ADVISOR,
    messages: [{ role: "user", content: question }],
  });
  return reply.text;
}
