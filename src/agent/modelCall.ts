import type { Phase, Status } from "../events/types.js";
import { outputCap } from "../model/outputCap.js";
import { idleTimeoutFor } from "../model/providers.js";
import { requestTokens } from "../model/size.js";
import { callModel, type ModelCallRequest, type ModelCallResult } from "../model/stream.js";
import { prose } from "../platform/prose.js";
import type { ModelHandle } from "./agentContext.js";
import { readingNotice } from "./readingNotice.js";
import type { Turn } from "./turn.js";

export type TurnRequest = Pick<
  ModelCallRequest,
  "system" | "messages" | "tools" | "responseSchema" | "onTextDelta"
> & {
  /** What the agent is doing while the call runs, for the note that a local model is still reading the prompt. */
  status?: Status;
  /** Messages of the conversation left out of `messages` to fit the model's window. */
  leftOut?: number;
};

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
  const { status, leftOut, ...sent } = request;
  const estimate = model.info.local ? requestTokens(sent) : 0;
  const promptTokens = model.sizer?.promptTokens(estimate) ?? estimate;
  // The cap leaves room for the prompt as the context is sized for it: a prompt of half the
  // window is no overflow.
  const cap = outputCap(model.info, config.max_output_tokens, model.sizer?.withMargin(estimate) ?? estimate);
  const context = model.sizer?.size(estimate, cap.send ?? cap.tokens);
  if (context?.overflows)
    turn.session.warnOnce(
      `${model.id}: a request needed more than its ${model.info.contextWindow}-token window; the server cuts what does not fit. ` +
        `If the server allows more, set models.${model.id}.context_window.`,
    );
  debug?.request(phase, { ...sent, modelId: model.id });
  const reading = model.info.local ? readingNotice(bus, status ?? "thinking", promptTokens) : undefined;
  const reply = await callModel({
    ...sent,
    model: model.model,
    modelId: model.id,
    signal: turn.signal,
    timeoutMs: idleTimeoutFor(model.id, config, config.request_timeout_ms),
    maxOutputTokens: cap.send,
    contextTokens: context?.tokens,
    maxOutputChars: cap.chars,
    maxRetries: config.retries.max,
    retryBaseMs: config.retries.base_ms,
    onFirstToken: () => reading?.stop(),
    onRetry: ({ attempt, delayMs, reason }) =>
      bus.emit({ type: "retry", attempt, delay_ms: delayMs, reason }),
  })
    .catch((error: unknown) => {
      debug?.failure(phase, model.id, error);
      throw error;
    })
    .finally(() => reading?.stop());
  if (!reply.usageEstimated) model.sizer?.observe(estimate, reply.usage.input_tokens);
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
    contextTokens: context?.tokens,
    cutToFit: Boolean(leftOut) || Boolean(context?.overflows),
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
