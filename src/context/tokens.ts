import type { ModelMessage } from "ai";

export type CountTokens = (text: string) => number;

let loading: Promise<CountTokens> | undefined;

/**
 * The o200k tokenizer, loaded on first use: its tables take a quarter of a second to load, which
 * only a session that is near its window should pay. Other providers' tokenizers differ by a few
 * per cent, which is why compaction triggers at a threshold well below the window.
 */
export function loadTokenCounter(): Promise<CountTokens> {
  loading ??= import("gpt-tokenizer/encoding/o200k_base").then(
    (module) => (text: string) => module.countTokens(text),
  );
  return loading;
}

/** A message as the text its tokens are counted over. */
export function messageText(message: ModelMessage): string {
  return typeof message.content === "string" ? message.content : JSON.stringify(message.content);
}
