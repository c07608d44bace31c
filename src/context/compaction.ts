import type { ModelMessage, ToolResultPart } from "ai";
import { messageText } from "../model/size.js";
import { prose } from "../platform/prose.js";
import type { CountTokens } from "./tokens.js";

/** Tool outputs shorter than this are kept whole: a stub would save nothing. */
const PRUNE_MIN_CHARS = 400;

/** Messages are immutable once added, so each is tokenized once however often the history is measured. */
const counted = new WeakMap<ModelMessage, number>();

export async function countMessages(
  count: CountTokens,
  messages: readonly ModelMessage[],
  signal?: AbortSignal,
): Promise<number> {
  let total = 0;
  for (const message of messages) {
    let tokens = counted.get(message);
    if (tokens === undefined) {
      tokens = await count(messageText(message), signal);
      counted.set(message, tokens);
    }
    total += tokens;
  }
  return total;
}

/**
 * Where the recent part of a history starts: the last `keepTurns` model turns (an assistant
 * message and the tool results answering it) are kept verbatim. Never index 0: the task stays.
 */
export function recentStart(messages: readonly ModelMessage[], keepTurns: number): number {
  let turns = 0;
  for (let i = messages.length - 1; i >= 1; i--) {
    if (messages[i]?.role === "assistant" && ++turns === keepTurns) return i;
  }
  return 1;
}

function prunedOutput(part: ToolResultPart): ToolResultPart {
  const output = part.output;
  if ((output.type !== "text" && output.type !== "error-text") || output.value.length < PRUNE_MIN_CHARS)
    return part;
  const lines = output.value.split("\n").length;
  return {
    ...part,
    output: {
      type: output.type,
      value: `[${part.toolName} output pruned to save context: ${lines} lines, ${output.value.length} characters. It is kept in the session log; call the tool again if you need it.]`,
    },
  };
}

/**
 * The first, cheap step: tool outputs older than the recent turns are replaced by a stub, since
 * the model has already acted on them. Returns the new messages and how many outputs were cut.
 */
export function pruneToolOutputs(
  messages: readonly ModelMessage[],
  keepTurns: number,
): { messages: ModelMessage[]; pruned: number } {
  const keepFrom = recentStart(messages, keepTurns);
  let pruned = 0;
  const result = messages.map((message, index) => {
    if (index >= keepFrom || message.role !== "tool") return message;
    const content = message.content.map((part) => {
      if (part.type !== "tool-result") return part;
      const next = prunedOutput(part);
      if (next !== part) pruned++;
      return next;
    });
    return { ...message, content };
  });
  return { messages: result, pruned };
}

/** Renders old turns as plain text for the summariser, capped so it fits the cheap model. */
export function transcript(messages: readonly ModelMessage[], maxChars: number): string {
  const text = messages.map((message) => `## ${message.role}\n${messageText(message)}`).join("\n\n");
  return text.length > maxChars ? `[... earlier part cut ...]\n${text.slice(text.length - maxChars)}` : text;
}

export const SNAPSHOT_INSTRUCTIONS = prose(new URL("./prompts/compaction.md", import.meta.url));

/** The compacted history: the task, the snapshot (with the live TODO list), then the recent turns verbatim. */
export function assembleCompacted(
  messages: readonly ModelMessage[],
  keepFrom: number,
  snapshot: string,
  todos: string,
): ModelMessage[] {
  const task = messages[0] as ModelMessage;
  const state: ModelMessage = {
    role: "user",
    content: `[Earlier turns were compacted into this snapshot of the work so far.]\n\n${snapshot.trim()}${todos ? `\n\n## Current TODO list\n${todos}` : ""}`,
  };
  return [task, state, ...messages.slice(keepFrom)];
}
