/**
 * One streamed model call, made on the provider's language model itself (the AI SDK's
 * `LanguageModelV4.doStream`) rather than through the `ai` package around it: the providers
 * build the request, speak the wire and parse the stream as before, but the messages cairn keeps
 * are converted once each, not again on every turn, the tool definitions once per set, and the
 * `ai` package (a large module, its gateway and telemetry) is never loaded. The parts come out
 * as `ai`'s `streamLanguageModelCall` gave them, for the few kinds cairn reads.
 */
import type {
  JSONSchema7,
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4FunctionTool,
  LanguageModelV4Message,
  LanguageModelV4StreamPart,
  LanguageModelV4Usage,
  SharedV4ProviderOptions,
  SharedV4Warning,
} from "@ai-sdk/provider";
import type {
  AssistantContent,
  LanguageModelUsage,
  ModelMessage,
  SystemModelMessage,
  ToolResultPart,
} from "ai";

/** A tool as the model is offered it: name, description and the JSON Schema of its arguments. */
export interface ToolDefinition {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** What a call streams back, in the shapes cairn's loop reads. */
export type CallPart =
  | { type: "model-call-start"; warnings: SharedV4Warning[] }
  | { type: "text-delta"; text: string }
  | { type: "reasoning-delta"; text: string }
  | { type: "tool-input-start"; id: string; toolName: string }
  | { type: "tool-input-delta"; id: string; delta: string }
  | { type: "tool-call"; toolCallId: string; toolName: string; input: unknown }
  | { type: "model-call-end"; finishReason: string; usage: LanguageModelUsage }
  | { type: "error"; error: unknown };

export interface CallRequest {
  model: LanguageModelV4;
  system: string | SystemModelMessage;
  messages: readonly ModelMessage[];
  tools?: readonly ToolDefinition[];
  responseFormat?: { name: string; schema: Record<string, unknown> };
  /** The cap on the answer's tokens, where the provider takes one. */
  maxOutputTokens?: number;
  abortSignal: AbortSignal;
  providerOptions?: Record<string, Record<string, unknown>>;
}

/** Converted once per list: a session offers the same list, the same object, on every turn. */
const preparedTools = new WeakMap<readonly ToolDefinition[], LanguageModelV4FunctionTool[]>();

function functionTools(definitions: readonly ToolDefinition[]): LanguageModelV4FunctionTool[] {
  let tools = preparedTools.get(definitions);
  if (!tools) {
    tools = definitions.map((definition) => ({
      type: "function",
      name: definition.name,
      description: definition.description,
      inputSchema: definition.parameters as JSONSchema7,
    }));
    preparedTools.set(definitions, tools);
  }
  return tools;
}

type ToolOutput = ToolResultPart["output"];

/** A file part as cairn makes them (an image, base64 data) in the provider's prompt shape. */
function filePart(part: { data: unknown; mediaType: string; providerOptions?: SharedV4ProviderOptions }) {
  const data = part.data as { type: "data"; data: string } | string;
  return {
    type: "file" as const,
    mediaType: part.mediaType,
    data: typeof data === "string" ? { type: "data" as const, data } : data,
    ...(part.providerOptions ? { providerOptions: part.providerOptions } : {}),
  };
}

function toolOutput(output: ToolOutput) {
  if (output.type !== "content") return output;
  return {
    type: "content" as const,
    value: output.value.map((item) => (item.type === "file" ? filePart(item) : item)),
  };
}

function assistantPart(part: Exclude<AssistantContent, string>[number]) {
  const providerOptions =
    "providerOptions" in part && part.providerOptions ? { providerOptions: part.providerOptions } : {};
  switch (part.type) {
    case "text":
    case "reasoning":
      return { type: part.type, text: part.text, ...providerOptions };
    case "tool-call":
      return {
        type: "tool-call" as const,
        toolCallId: part.toolCallId,
        toolName: part.toolName,
        input: part.input,
        ...providerOptions,
      };
    case "tool-result":
      return {
        type: "tool-result" as const,
        toolCallId: part.toolCallId,
        toolName: part.toolName,
        output: toolOutput(part.output),
        ...providerOptions,
      };
    case "file":
      return filePart({ data: part.data, mediaType: part.mediaType, ...providerOptions });
    default:
      throw new Error(`cairn does not send ${part.type} parts`);
  }
}

/** A message of the history in the provider's prompt shape. */
function convert(message: ModelMessage): LanguageModelV4Message {
  const providerOptions = message.providerOptions ? { providerOptions: message.providerOptions } : {};
  switch (message.role) {
    case "system":
      return { role: "system", content: message.content, ...providerOptions };
    case "user": {
      const content =
        typeof message.content === "string"
          ? [{ type: "text" as const, text: message.content }]
          : message.content
              .map((part) =>
                part.type === "text"
                  ? { type: "text" as const, text: part.text }
                  : part.type === "file"
                    ? filePart(part)
                    : notSent(part.type),
              )
              .filter((part) => part.type !== "text" || part.text !== "");
      return { role: "user", content, ...providerOptions };
    }
    case "assistant": {
      const content =
        typeof message.content === "string"
          ? [{ type: "text" as const, text: message.content }]
          : message.content.filter((part) => part.type !== "text" || part.text !== "").map(assistantPart);
      return { role: "assistant", content, ...providerOptions } as LanguageModelV4Message;
    }
    case "tool": {
      const content = message.content.map((part) =>
        part.type === "tool-result"
          ? {
              type: "tool-result" as const,
              toolCallId: part.toolCallId,
              toolName: part.toolName,
              output: toolOutput(part.output),
            }
          : notSent(part.type),
      );
      return { role: "tool", content, ...providerOptions } as LanguageModelV4Message;
    }
  }
}

function notSent(type: string): never {
  throw new Error(`cairn does not send ${type} parts`);
}

/** History messages are kept as they are, so each is converted once, whatever turn resends it. */
const converted = new WeakMap<ModelMessage, LanguageModelV4Message>();

function prompt(request: CallRequest): LanguageModelV4Message[] {
  const system =
    typeof request.system === "string"
      ? { role: "system" as const, content: request.system }
      : request.system;
  return [system, ...request.messages].map((message) => {
    let out = converted.get(message);
    if (!out) {
      out = convert(message);
      converted.set(message, out);
    }
    return out;
  });
}

/** The provider's counts as the SDK reports usage: totals, with their parts beside them. */
function usageOf(usage: LanguageModelV4Usage): LanguageModelUsage {
  const input = usage.inputTokens.total;
  const output = usage.outputTokens.total;
  return {
    inputTokens: input,
    inputTokenDetails: {
      noCacheTokens: usage.inputTokens.noCache,
      cacheReadTokens: usage.inputTokens.cacheRead,
      cacheWriteTokens: usage.inputTokens.cacheWrite,
    },
    outputTokens: output,
    outputTokenDetails: {
      textTokens: usage.outputTokens.text,
      reasoningTokens: usage.outputTokens.reasoning,
    },
    totalTokens: input === undefined && output === undefined ? undefined : (input ?? 0) + (output ?? 0),
    raw: usage.raw,
  };
}

/**
 * Arguments as the model wrote them, parsed; the text itself when it is not JSON, so argument
 * repair sees exactly what was sent (`{}` for none at all, as providers send a call without them).
 */
function parsedInput(input: string): unknown {
  if (input.trim() === "") return {};
  try {
    return JSON.parse(input);
  } catch {
    return input;
  }
}

function toPart(part: LanguageModelV4StreamPart): CallPart | undefined {
  switch (part.type) {
    case "stream-start":
      return { type: "model-call-start", warnings: part.warnings };
    case "text-delta":
      return { type: "text-delta", text: part.delta };
    case "reasoning-delta":
      return { type: "reasoning-delta", text: part.delta };
    case "tool-input-start":
      return { type: "tool-input-start", id: part.id, toolName: part.toolName };
    case "tool-input-delta":
      return { type: "tool-input-delta", id: part.id, delta: part.delta };
    case "tool-call":
      return {
        type: "tool-call",
        toolCallId: part.toolCallId,
        toolName: part.toolName,
        input: parsedInput(part.input),
      };
    case "finish":
      return { type: "model-call-end", finishReason: part.finishReason.unified, usage: usageOf(part.usage) };
    case "error":
      return { type: "error", error: part.error };
    default:
      return undefined;
  }
}

/** Starts the call; its parts arrive through the returned iterable until the provider's stream ends. */
export async function streamCall(request: CallRequest): Promise<AsyncIterable<CallPart>> {
  const options: LanguageModelV4CallOptions = {
    prompt: prompt(request),
    toolChoice: { type: "auto" },
    ...(request.tools ? { tools: functionTools(request.tools) } : {}),
    ...(request.responseFormat
      ? {
          responseFormat: {
            type: "json",
            schema: request.responseFormat.schema as JSONSchema7,
            name: request.responseFormat.name,
          },
        }
      : {}),
    ...(request.maxOutputTokens ? { maxOutputTokens: request.maxOutputTokens } : {}),
    abortSignal: request.abortSignal,
    ...(request.providerOptions
      ? { providerOptions: request.providerOptions as SharedV4ProviderOptions }
      : {}),
  };
  const { stream } = await request.model.doStream(options);
  return (async function* parts() {
    const reader = stream.getReader();
    let finished = false;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) {
          finished = true;
          return;
        }
        const part = toPart(value);
        if (part) yield part;
      }
    } finally {
      // A reader that stops early (an error part, an abort) lets the provider's request go.
      if (!finished) await reader.cancel().catch(() => {});
    }
  })();
}
