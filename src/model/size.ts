import type { ModelMessage } from "ai";

/** About 3.5 characters a token for code and English: enough to decide what fits a window. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 3.5);
}

/**
 * A message as the text its tokens are counted over. An image (a file part's data) counts as a
 * word: a provider bills it by its pixels, a thousand tokens or so, where its base64 would count
 * as hundreds of thousands and crowd the rest of the conversation out of the window.
 */
export function messageText(message: ModelMessage): string {
  if (typeof message.content === "string") return message.content;
  return JSON.stringify(message.content, (key, value) =>
    key === "data" && value?.type === "data" && typeof value.data === "string" ? "[image]" : value,
  );
}

/** Messages are immutable once sent, so each is measured once however many requests carry it. */
const estimated = new WeakMap<ModelMessage, number>();

/** The estimated tokens of a message, kept for the next time it is asked. */
export function messageTokens(message: ModelMessage): number {
  let tokens = estimated.get(message);
  if (tokens === undefined) {
    tokens = estimateTokens(messageText(message));
    estimated.set(message, tokens);
  }
  return tokens;
}

/** What a request's prompt weighs, by estimate: its system prompt, tool definitions and messages. */
export function requestTokens(request: {
  system: string;
  messages: readonly ModelMessage[];
  tools?: unknown;
}): number {
  const tools = request.tools ? estimateTokens(JSON.stringify(request.tools)) : 0;
  return (
    estimateTokens(request.system) + tools + request.messages.reduce((sum, m) => sum + messageTokens(m), 0)
  );
}
