// OpenAI chat completions and Responses, as their servers stream them.
import { type Answer, type Frame, MODEL, pieces, sse } from "./turns.js";

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

export function chatFrames(answer: Answer, usageAsked: boolean): Frame[] {
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
  if (usageAsked && answer.usageReported)
    frames.push({ data: sse({ ...base, choices: [], usage: chatUsage(answer.usage) }) });
  frames.push({ data: "data: [DONE]\n\n" });
  return frames;
}

export function chatBody(answer: Answer) {
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
    ...(answer.usageReported && { usage: chatUsage(answer.usage) }),
  };
}

/** An error inside a chat completions stream, as OpenAI-style servers send one after a 200. */
export function chatErrorFrame(message: string, type = "server_error"): Frame {
  return { data: sse({ error: { message, type, param: null, code: null } }) };
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
export function responsesBody(answer: Answer, status: "in_progress" | "completed") {
  const done = status === "completed";
  return {
    id: `resp_${answer.id}`,
    object: "response",
    created_at: created(),
    status: done && answer.cutAtLimit ? "incomplete" : status,
    model: MODEL,
    output: done ? responsesItems(answer) : [],
    usage: done && answer.usageReported ? responsesUsage(answer.usage) : null,
    incomplete_details: done && answer.cutAtLimit ? { reason: "max_output_tokens" } : null,
    error: null,
  };
}

/** An error inside a Responses stream: its `error` event. */
export function responsesErrorFrame(message: string, type = "server_error"): Frame {
  return {
    data: `event: error\n${sse({ type: "error", sequence_number: 0, code: type, message, param: null })}`,
  };
}

export function responsesFrames(answer: Answer): Frame[] {
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
