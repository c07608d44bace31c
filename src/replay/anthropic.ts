// Anthropic messages, as its server streams them.
import { type Answer, type Frame, MODEL, pieces, sse } from "./turns.js";

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

export function anthropicBody(answer: Answer) {
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

/** An error inside a messages stream, as Anthropic sends `overloaded_error` after a 200. */
export function anthropicErrorFrame(message: string, type = "api_error"): Frame {
  return { data: `event: error\n${sse({ type: "error", error: { type, message } })}` };
}

export function anthropicFrames(answer: Answer): Frame[] {
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
