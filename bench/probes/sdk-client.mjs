// The SDK's floor under the per-turn overhead benchmark: the requests cairn sent, made again one
// after the other through the same provider cairn uses (@ai-sdk/openai's chat model, its
// `doStream`), each stream read to its end. What the provider does on every call (converting the
// prompt to the wire format, building the body and headers, fetch, parsing and validating every
// streamed chunk) is in it; no tool, no event, no store. The prompts are converted from the
// recorded bodies before the first request, so that conversion is not timed.
import { readFileSync } from "node:fs";
import { createOpenAI } from "@ai-sdk/openai";

const [baseURL, file] = process.argv.slice(2);
const bodies = JSON.parse(readFileSync(file, "utf8")).map((raw) => JSON.parse(raw));

function text(content) {
  if (typeof content === "string") return content;
  return (content ?? []).map((part) => part.text ?? "").join("");
}

/** Chat-completions messages back into the SDK's prompt shape, the shape cairn hands the provider. */
function promptOf(messages) {
  const toolNames = new Map();
  return messages.map((message) => {
    if (message.role === "system") return { role: "system", content: text(message.content) };
    if (message.role === "user")
      return { role: "user", content: [{ type: "text", text: text(message.content) }] };
    if (message.role === "assistant") {
      const said = text(message.content);
      const calls = (message.tool_calls ?? []).map((call) => {
        toolNames.set(call.id, call.function.name);
        return {
          type: "tool-call",
          toolCallId: call.id,
          toolName: call.function.name,
          input: JSON.parse(call.function.arguments),
        };
      });
      return { role: "assistant", content: [...(said ? [{ type: "text", text: said }] : []), ...calls] };
    }
    return {
      role: "tool",
      content: [
        {
          type: "tool-result",
          toolCallId: message.tool_call_id,
          toolName: toolNames.get(message.tool_call_id) ?? "",
          output: { type: "text", value: text(message.content) },
        },
      ],
    };
  });
}

const calls = bodies.map((body) => ({
  prompt: promptOf(body.messages),
  tools: (body.tools ?? []).map(({ function: tool }) => ({
    type: "function",
    name: tool.name,
    description: tool.description,
    inputSchema: tool.parameters,
  })),
  ...(body.max_tokens ? { maxOutputTokens: body.max_tokens } : {}),
  ...(body.max_completion_tokens ? { maxOutputTokens: body.max_completion_tokens } : {}),
}));
const model = createOpenAI({ apiKey: "sk-bench", baseURL }).chat(bodies[0]?.model ?? "gpt-4o");
for (const call of calls) {
  const { stream } = await model.doStream(call);
  for await (const part of stream) {
    if (part.type === "error") throw part.error;
  }
}
