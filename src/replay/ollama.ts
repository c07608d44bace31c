// Ollama chat, as its server streams it (NDJSON).
import { type Answer, type Frame, MODEL, pieces } from "./turns.js";

// --- Ollama chat ---

export function ollamaLine(
  answer: Answer,
  part: { content: string; thinking?: string; withTools?: boolean; done: boolean },
): Record<string, unknown> {
  const message: Record<string, unknown> = { role: "assistant", content: part.content };
  if (part.thinking) message.thinking = part.thinking;
  if (part.withTools && answer.toolCalls.length > 0) {
    // Ollama sends arguments as an object; unparsable arguments can only travel as a JSON string.
    message.tool_calls = answer.toolCalls.map((c) => ({
      id: c.id,
      function: { name: c.name, arguments: c.parsed },
    }));
  }
  const line: Record<string, unknown> = {
    model: MODEL,
    created_at: new Date().toISOString(),
    message,
    done: part.done,
  };
  if (part.done) {
    Object.assign(line, {
      done_reason: answer.cutAtLimit ? "length" : "stop",
      total_duration: 1,
      load_duration: 1,
      ...(answer.usageReported && {
        prompt_eval_count: answer.usage.input,
        prompt_eval_duration: 1,
        eval_count: answer.usage.output,
        eval_duration: 1,
      }),
    });
  }
  return line;
}

/** An error in the middle of an Ollama stream: a line with `error` alone. */
export function ollamaErrorFrame(message: string): Frame {
  return { data: `${JSON.stringify({ error: message })}\n` };
}

export function ollamaFrames(answer: Answer): Frame[] {
  const frames: Frame[] = [];
  const line = (value: object, kind?: Frame["kind"]): Frame => ({
    data: `${JSON.stringify(value)}\n`,
    ...(kind && { kind }),
  });
  for (const thinking of pieces(answer.reasoning))
    frames.push(line(ollamaLine(answer, { content: "", thinking, done: false })));
  for (const content of pieces(answer.text, answer.textPieces))
    frames.push(line(ollamaLine(answer, { content, done: false }), "text"));
  // Ollama delivers tool calls whole, in one line.
  if (answer.toolCalls.length > 0)
    frames.push(line(ollamaLine(answer, { content: "", withTools: true, done: false }), "tool"));
  frames.push(line(ollamaLine(answer, { content: "", done: true })));
  return frames;
}
