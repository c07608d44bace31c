import type { ModelMessage } from "ai";
import { messageTokens } from "../model/size.js";

/**
 * Messages sent to the model: the task first, then turns appended in order. Old turns are only
 * dropped when the window demands it, since every change to the front breaks the provider's
 * prompt cache.
 */
export class History {
  private readonly messages: ModelMessage[] = [];
  private readonly tokens: number[] = [];

  add(...messages: ModelMessage[]): void {
    for (const message of messages) {
      this.messages.push(message);
      this.tokens.push(messageTokens(message));
    }
  }

  all(): readonly ModelMessage[] {
    return this.messages;
  }

  /** A quick estimate of the whole history's size, from sizes kept as messages were added. */
  estimatedTokens(): number {
    return this.tokens.reduce((sum, n) => sum + n, 0);
  }

  /** Swaps the whole history for a compacted one: the one place its front may change. */
  replace(messages: ModelMessage[]): void {
    this.messages.length = 0;
    this.tokens.length = 0;
    this.add(...messages);
  }

  /**
   * The messages that fit `budget` tokens: the first message (the task) and the most recent
   * turns, cut only where a turn starts (a user or assistant message), so a tool result never
   * loses the call it answers.
   */
  fit(budget: number): { messages: ModelMessage[]; dropped: number } {
    const total = this.tokens.reduce((sum, n) => sum + n, 0);
    if (total <= budget || this.messages.length <= 2) return { messages: [...this.messages], dropped: 0 };
    let used = this.tokens[0] ?? 0;
    let start = this.messages.length;
    for (let i = this.messages.length - 1; i >= 1; i--) {
      used += this.tokens[i] ?? 0;
      if (used > budget) break;
      start = i;
    }
    while (start < this.messages.length && this.messages[start]?.role === "tool") start++;
    // Even the newest turn is over budget: keep it whole anyway, the model cannot act without it.
    if (start >= this.messages.length) {
      start = this.messages.length - 1;
      while (start > 1 && this.messages[start]?.role === "tool") start--;
    }
    const dropped = start - 1;
    const note: ModelMessage = {
      role: "user",
      content: `[${dropped} earlier messages were left out to fit the context window.]`,
    };
    const first = this.messages[0] as ModelMessage;
    return {
      messages: dropped > 0 ? [first, note, ...this.messages.slice(start)] : [...this.messages],
      dropped,
    };
  }
}
