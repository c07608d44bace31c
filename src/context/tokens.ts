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
