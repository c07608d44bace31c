import type { EventBus } from "../events/bus.js";
import type { Phase, StampedEvent, TokenCounts, UsageTotals } from "../events/types.js";
import type { Price } from "../model/cost.js";
import { costOf } from "../model/cost.js";
import { addCall, emptyUsage } from "../model/usage.js";

export interface UsageRecord {
  phase: Phase;
  modelId: string;
  counts: TokenCounts;
  price: Price | null;
  durationMs: number;
  generationMs: number;
}

export interface UsageCaps {
  maxCostUsd?: number | undefined;
  maxTokens?: number | undefined;
}

/** A cap was reached: the run ends as budget_exceeded with its work so far kept. */
export class BudgetExceededError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "BudgetExceededError";
  }
}

/** Every model call's tokens and dollars, booked by phase the moment the call ends. */
export class UsageLedger {
  private readonly byPhase = new Map<Phase, UsageTotals>();
  private total = emptyUsage();
  private readonly bus: EventBus;
  private readonly caps: UsageCaps;

  constructor(bus: EventBus, caps: UsageCaps = {}) {
    this.bus = bus;
    this.caps = caps;
  }

  /** Throws once a cap is reached, after the call that reached it has been booked. */
  private enforceCaps(): void {
    const { maxCostUsd, maxTokens } = this.caps;
    const cost = this.total.cost_usd;
    if (maxCostUsd !== undefined && cost !== null && cost >= maxCostUsd) {
      throw new BudgetExceededError(`cost cap reached: $${cost.toFixed(4)} of $${maxCostUsd} spent`);
    }
    const tokens = this.total.input_tokens + this.total.output_tokens;
    if (maxTokens !== undefined && tokens >= maxTokens) {
      throw new BudgetExceededError(`token cap reached: ${tokens} of ${maxTokens} tokens used`);
    }
  }

  record(record: UsageRecord): number | null {
    const cost = costOf(record.counts, record.price);
    this.byPhase.set(
      record.phase,
      addCall(this.byPhase.get(record.phase) ?? emptyUsage(), record.counts, cost),
    );
    this.total = addCall(this.total, record.counts, cost);
    const seconds = record.generationMs / 1000;
    this.bus.emit({
      type: "usage",
      phase: record.phase,
      model: record.modelId,
      ...record.counts,
      cost_usd: cost,
      duration_ms: Math.round(record.durationMs),
      tokens_per_second:
        seconds > 0 && record.counts.output_tokens > 0 ? record.counts.output_tokens / seconds : null,
    });
    this.enforceCaps();
    return cost;
  }

  /** Books calls a resumed session already paid for, without announcing them again. */
  restore(usage: Array<Extract<StampedEvent, { type: "usage" }>>): void {
    for (const call of usage) {
      const counts = {
        input_tokens: call.input_tokens,
        output_tokens: call.output_tokens,
        cached_input_tokens: call.cached_input_tokens,
        cache_write_tokens: call.cache_write_tokens,
        reasoning_tokens: call.reasoning_tokens,
      };
      this.byPhase.set(
        call.phase,
        addCall(this.byPhase.get(call.phase) ?? emptyUsage(), counts, call.cost_usd),
      );
      this.total = addCall(this.total, counts, call.cost_usd);
    }
  }

  totals(): UsageTotals {
    return { ...this.total };
  }

  phases(): Partial<Record<Phase, UsageTotals>> {
    return Object.fromEntries([...this.byPhase].map(([phase, totals]) => [phase, { ...totals }]));
  }
}
