import type { Phase } from "../events/types.js";
import { outputCap } from "../model/outputCap.js";
import { requestTokens } from "../model/size.js";
import { callModel, type ModelCallRequest, type ModelCallResult } from "../model/stream.js";
import { prose } from "../platform/prose.js";
import type { ModelHandle } from "./agentContext.js";
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
  const { config, debug } = turn.session;
  // Booked and told as the agent whose turn it is: its budget, its events.
  const { bus, ledger } = turn.agent;
  const cap = outputCap(model.info, config.max_output_tokens, model.info.local ? requestTokens(request) : 0);
  debug?.request(phase, { ...request, modelId: model.id });
  const reply = await callModel({
    ...request,
    model: model.model,
    modelId: model.id,
    signal: turn.signal,
    timeoutMs: config.request_timeout_ms,
    maxOutputTokens: cap.send,
    maxOutputChars: cap.chars,
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
  if (reply.usageEstimated) {
    turn.session.warnOnce(
      `${model.id} reported no token usage: its calls are counted by estimate (about 3.5 characters a token), ` +
        "and the token and cost caps apply to the estimates.",
    );
  }
  if (reply.outputCapped) {
    // The call whose arguments were still arriving is handed on as their raw text, to be refused.
    const open = reply.toolCalls.at(-1);
    const inCall =
      typeof open?.input === "string" ? `, in the middle of a ${open.name} call, which does not run` : "";
    bus.emit({
      type: "error",
      fatal: false,
      message:
        `The answer from ${model.id} went past the output cap of ${cap.tokens} tokens and was cut off there${inCall}. ` +
        `Raise max_output_tokens (or models.${model.id}.max_output_tokens) for longer answers.`,
    });
  }
  ledger.record({
    phase,
    modelId: model.id,
    counts: reply.usage,
    estimated: reply.usageEstimated,
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
