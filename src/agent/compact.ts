import {
  assembleCompacted,
  countMessages,
  pruneToolOutputs,
  recentStart,
  SNAPSHOT_INSTRUCTIONS,
  transcript,
} from "../context/compaction.js";
import type { History } from "../context/history.js";
import { loadTokenCounter } from "../context/tokens.js";
import { callAndBook } from "./modelCall.js";
import type { Turn } from "./turn.js";

/** Model turns kept verbatim through a compaction. */
const KEEP_TURNS = 3;
/** Below this share of the limit by estimate, the history is surely under it (estimates err by < 30%). */
const NEAR_LIMIT = 0.7;

export interface CompactionStats {
  before: number;
  after: number;
  pruned: number;
  summarized: number;
}

/**
 * Keeps a conversation inside its model's window: above the threshold, old tool outputs are
 * pruned first; if that is not enough, old turns are summarised by the cheap model into a state
 * snapshot. A compaction that does not shrink the context is rejected, and a history is not
 * summarised again until new turns have been added since the last time, so it never loops.
 */
export class Compactor {
  private readonly history: History;
  private summarizedAtLength = -1;

  constructor(history: History) {
    this.history = history;
  }

  /** `overhead`: tokens of the system prompt and tool definitions sent with every request. */
  async maybeCompact(
    turn: Turn,
    window: number,
    overhead: number,
    force = false,
  ): Promise<CompactionStats | undefined> {
    const { session } = turn;
    const limit = Math.floor(window * session.config.context.compact_at);
    // The estimate is free; the tokenizer is paid for only when the history may be near the limit.
    if (!force && overhead + this.history.estimatedTokens() < limit * NEAR_LIMIT) return undefined;
    const count = await loadTokenCounter();
    const messages = [...this.history.all()];
    const before = overhead + (await countMessages(count, messages, turn.signal));
    if (!force && before <= limit) return undefined;

    const pruned = pruneToolOutputs(messages, KEEP_TURNS);
    let candidate = pruned.messages;
    let after = overhead + (await countMessages(count, candidate, turn.signal));
    let summarized = 0;
    const grewSinceSummary = this.history.all().length > this.summarizedAtLength + KEEP_TURNS;
    if ((force || after > limit) && grewSinceSummary) {
      const keepFrom = recentStart(candidate, KEEP_TURNS);
      if (keepFrom > 1) {
        const snapshot = await this.summarize(turn, candidate.slice(1, keepFrom));
        const todos = turn.agent.todos.map((todo) => `- [${todo.status}] ${todo.content}`).join("\n");
        const compacted = assembleCompacted(candidate, keepFrom, snapshot, todos);
        const size = overhead + (await countMessages(count, compacted, turn.signal));
        if (size < after) {
          candidate = compacted;
          after = size;
          summarized = keepFrom - 1;
        }
      }
    }
    if (after >= before) return undefined;
    this.history.replace(candidate);
    if (summarized) this.summarizedAtLength = this.history.all().length;
    const stats = { before, after, pruned: pruned.pruned, summarized };
    turn.agent.bus.emit({
      type: "compaction",
      before_tokens: before,
      after_tokens: after,
      pruned_outputs: stats.pruned,
      summarized_messages: summarized,
    });
    return stats;
  }

  private async summarize(turn: Turn, old: Parameters<typeof transcript>[0]): Promise<string> {
    const cheap = await turn.session.modelFor("cheap");
    // A quarter of the cheap model's window for the transcript leaves room for the answer.
    const maxChars = Math.floor(cheap.info.contextWindow * 0.25 * 3.5);
    const reply = await callAndBook(turn, cheap, "compaction", {
      system: SNAPSHOT_INSTRUCTIONS,
      messages: [{ role: "user", content: transcript(old, maxChars) }],
    });
    return reply.text;
  }
}
