import type { ModelInfo } from "./catalog.js";

/**
 * Characters a token of output stands for at most, in all but the most repetitive text (a run
 * of spaces can be a hundred characters a token): the bound on what one answer may stream is
 * its cap in tokens times this, so a server that keeps to the cap never reaches it.
 */
const CHARS_PER_TOKEN = 8;
/** What a local server is always allowed to answer, however full its window looks. */
const MIN_SENT = 1_024;
/** The share of a local server's window left after the prompt that an answer may fill: estimates err. */
const WINDOW_SHARE = 0.9;

export interface OutputCap {
  /** The cap in tokens. */
  tokens: number;
  /** Sent with the request (max_tokens, max_output_tokens, num_predict); absent when the provider's own limit applies. */
  send: number | undefined;
  /** The answer is cut off once its text, reasoning and tool-call arguments pass this many characters. */
  chars: number;
}

/**
 * The cap on one answer. `models.<id>.max_output_tokens` is sent to any provider. Otherwise
 * `defaultTokens` is sent only to local and OpenAI-compatible servers, which may have no limit
 * of their own (a looping model would stream for ever) and may refuse a request whose prompt
 * and answer together pass the window, so it is lowered to what the window leaves; hosted
 * providers apply their model's own limit, which a larger number sent would make them refuse.
 * Either way the answer's characters are bounded, for servers that ignore what they are sent.
 */
export function outputCap(info: ModelInfo, defaultTokens: number, promptTokens: number): OutputCap {
  const tokens = info.maxOutputTokens ?? defaultTokens;
  const room = Math.floor((info.contextWindow - promptTokens) * WINDOW_SHARE);
  const send = info.maxOutputTokens ?? (info.local ? Math.max(MIN_SENT, Math.min(tokens, room)) : undefined);
  return { tokens, send, chars: tokens * CHARS_PER_TOKEN };
}
