import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import type { RecordedRequest } from "../../test/support/scriptedServer.js";
import type { StreamEvent } from "./session.js";
import { sum } from "./stats.js";

/** Breakpoint marks say where the provider may cache up to; they are not part of what it caches. */
const withoutMarks = (key: string, value: unknown) => (key === "cache_control" ? undefined : value);

/**
 * The prompt of a request in the order providers cache it: tool definitions, then the response
 * schema if any, then the system prompt (Anthropic's messages API sends it apart) and the
 * messages as sent, without Anthropic's cache breakpoint marks.
 */
export function promptText(body: {
  tools?: unknown;
  response_format?: unknown;
  system?: unknown;
  messages?: unknown[];
}): string {
  const parts = [
    ...(body.tools ? [body.tools] : []),
    ...(body.response_format ? [body.response_format] : []),
    ...(body.system ? [body.system] : []),
    ...(body.messages ?? []),
  ];
  return parts.map((part) => JSON.stringify(part, withoutMarks)).join("\n");
}

function commonPrefix(a: Buffer, b: Buffer): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}

export interface PromptTurn {
  /** The request's position in the session. */
  index: number;
  /** Requests that continue one another: the phase they are booked under (execution, planning…). */
  conversation: string;
  prompt: Buffer;
  /** Bytes at the start of this prompt equal to the previous prompt of its conversation; null for the first. */
  shared: number | null;
  /** How much an append-only conversation would share: all of the previous prompt. */
  previousBytes: number | null;
  /** A compaction call, or the first request after the history was compacted. */
  compaction: boolean;
}

/**
 * Each request with the part of its prompt a provider's prefix cache could reuse. The n-th
 * request is the n-th model call, whose `usage` event names its phase; a `compaction` event marks
 * the call after it.
 */
export function promptTurns(
  requests: readonly RecordedRequest[],
  events: readonly StreamEvent[],
): PromptTurn[] {
  const phases: string[] = [];
  const compactedBefore = new Set<number>();
  for (const event of events) {
    if (event.type === "usage") phases.push(String(event.phase));
    if (event.type === "compaction") compactedBefore.add(phases.length);
  }
  if (phases.length !== requests.length) {
    throw new Error(`${requests.length} requests but ${phases.length} usage events: cannot tell them apart`);
  }
  const previous = new Map<string, Buffer>();
  return requests.map((request, index) => {
    const conversation = phases[index]!;
    const prompt = Buffer.from(promptText(request.body), "utf8");
    const before = previous.get(conversation);
    previous.set(conversation, prompt);
    return {
      index,
      conversation,
      prompt,
      shared: before ? commonPrefix(before, prompt) : null,
      previousBytes: before ? before.length : null,
      compaction: conversation === "compaction" || compactedBefore.has(index),
    };
  });
}

export interface CacheShare {
  /** Requests with a previous one in their conversation. */
  requests: number;
  /** Shared bytes over all bytes of those requests, in per cent. */
  share: number | null;
  /** What an append-only history would share, in per cent. */
  ideal: number | null;
  /** The lowest share of any one request, in per cent. */
  lowest: number | null;
}

export function cacheShare(turns: readonly PromptTurn[]): CacheShare {
  const measured = turns.filter((turn) => turn.shared !== null);
  if (measured.length === 0) return { requests: 0, share: null, ideal: null, lowest: null };
  const bytes = sum(measured.map((turn) => turn.prompt.length));
  return {
    requests: measured.length,
    share: (100 * sum(measured.map((turn) => turn.shared!))) / bytes,
    ideal: (100 * sum(measured.map((turn) => Math.min(turn.previousBytes!, turn.prompt.length)))) / bytes,
    lowest: Math.min(...measured.map((turn) => (100 * turn.shared!) / turn.prompt.length)),
  };
}

/**
 * Tokens (o200k) a provider's prefix cache could not serve: of each request, what follows the
 * part it shares with the previous request of its conversation; all of a conversation's first.
 */
export function uncachedTokens(turns: readonly PromptTurn[]): number {
  const tokens = (bytes: Buffer) => countTokens(bytes.toString("utf8"));
  return sum(
    turns.map(
      (turn) => tokens(turn.prompt) - (turn.shared ? tokens(turn.prompt.subarray(0, turn.shared)) : 0),
    ),
  );
}

/** The share of the previous request of its conversation that a request begins with, in per cent. */
export function prefixKept(turn: PromptTurn): number | null {
  return turn.shared === null || !turn.previousBytes ? null : (100 * turn.shared) / turn.previousBytes;
}
