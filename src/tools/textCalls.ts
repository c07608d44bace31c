import { jsonrepair } from "jsonrepair";

export interface TextToolCall {
  name: string;
  /** Arguments as written (text), so they go through the same repair and validation as native calls. */
  input: unknown;
}

export interface ParsedReply {
  /** The reply with the tool blocks taken out: what the person should read. */
  prose: string;
  calls: TextToolCall[];
}

const FENCED = /```(?:json|tool|tool_call)?\s*\n([\s\S]*?)```/g;

function readCall(candidate: string): TextToolCall | undefined {
  let value: unknown;
  try {
    value = JSON.parse(jsonrepair(candidate));
  } catch {
    return undefined;
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  const name = record.tool ?? record.name;
  if (typeof name !== "string") return undefined;
  return { name, input: record.arguments ?? record.args ?? record.parameters ?? {} };
}

/**
 * Reads tool calls from the reply of a model without native tool calling: fenced JSON blocks
 * naming a tool, or a reply that is nothing but such an object.
 */
export function parseTextToolCalls(text: string): ParsedReply {
  const calls: TextToolCall[] = [];
  const prose = text.replace(FENCED, (block, body: string) => {
    const call = readCall(body);
    if (!call) return block;
    calls.push(call);
    return "";
  });
  if (calls.length === 0) {
    const trimmed = text.trim();
    if (trimmed.startsWith("{")) {
      const call = readCall(trimmed);
      if (call) return { prose: "", calls: [call] };
    }
  }
  return { prose: prose.trim(), calls };
}
