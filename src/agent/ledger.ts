import type { EventBus } from "../events/bus.js";
import {
  agentNameOf,
  MAIN_AGENT,
  type Phase,
  type StampedEvent,
  type TokenCounts,
  type UsageTotals,
} from "../events/types.js";
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
  /** What the call cost, when its maker said (an external agent's own bill); otherwise priced here. */
  costUsd?: number | null;
  /** The provider reported no usage: `counts` are estimated, and the caps apply to them all the same. */
  estimated?: boolean;
  /** The context the request asked the server for (Ollama's num_ctx). */
  contextTokens?: number | undefined;
  /** The request did not fit the model's window whole: older messages were left out, or the server cuts the prompt. */
  cutToFit?: boolean;
}

export interface UsageCaps {
  maxCostUsd?: number | undefined;
  maxTokens?: number | undefined;
}

/** A cap was reached: the run ends as budget_exceeded with its work so far kept. */
export class BudgetExceededError extends Error {
  /** Which cap: the result's reason code. */
  readonly cap: "cost_cap" | "token_cap";

  constructor(message: string, cap: "cost_cap" | "token_cap") {
    super(message);
    this.name = "BudgetExceededError";
    this.cap = cap;
  }
}

/** A sub-agent reached its own cap: it stops, and the agent that started it goes on. */
export class AgentBudgetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "AgentBudgetError";
  }
}

/** A sub-agent's share of a ledger: its name, and the cap carved out for it. */
interface Share {
  parent: UsageLedger;
  agent: string;
}

function add<K>(map: Map<K, UsageTotals>, key: K, counts: TokenCounts, cost: number | null): void {
  map.set(key, addCall(map.get(key) ?? emptyUsage(), counts, cost));
}

function plain<K extends string>(map: Map<K, UsageTotals>): Partial<Record<K, UsageTotals>> {
  return Object.fromEntries([...map].map(([key, totals]) => [key, { ...totals }])) as Partial<
    Record<K, UsageTotals>
  >;
}

/**
 * Every model call's tokens and dollars, booked by phase and by agent the moment the call ends.
 * A sub-agent books through a ledger of its own (`share`): its calls count in the session's
 * totals under its name and phase `execution`, and against its own cap as well as the session's.
 */
export class UsageLedger {
  private readonly byPhase = new Map<Phase, UsageTotals>();
  private readonly byAgent = new Map<string, UsageTotals>();
  private total = emptyUsage();
  private readonly bus: EventBus;
  private readonly caps: UsageCaps;
  private readonly owner: Share | undefined;

  constructor(bus: EventBus, caps: UsageCaps = {}, owner?: Share) {
    this.bus = bus;
    this.caps = caps;
    this.owner = owner;
  }

  /** A ledger for a sub-agent emitting on `bus`, within this one, with caps of its own. */
  share(bus: EventBus, agent: string, caps: UsageCaps): UsageLedger {
    return new UsageLedger(bus, caps, { parent: this, agent });
  }

  /** Throws once a cap is reached, after the call that reached it has been booked: the session's first. */
  private enforceCaps(): void {
    this.owner?.parent.enforceCaps();
    const { maxCostUsd, maxTokens } = this.caps;
    const fail = (message: string, cap: BudgetExceededError["cap"]) =>
      this.owner ? new AgentBudgetError(message) : new BudgetExceededError(message, cap);
    const cost = this.total.cost_usd;
    if (maxCostUsd !== undefined && cost !== null && cost >= maxCostUsd) {
      throw fail(`cost cap reached: $${cost.toFixed(4)} of $${maxCostUsd} spent`, "cost_cap");
    }
    const tokens = this.total.input_tokens + this.total.output_tokens;
    if (maxTokens !== undefined && tokens >= maxTokens) {
      throw fail(`token cap reached: ${tokens} of ${maxTokens} tokens used`, "token_cap");
    }
  }

  private book(phase: Phase, agent: string, counts: TokenCounts, cost: number | null): void {
    add(this.byPhase, phase, counts, cost);
    add(this.byAgent, agent, counts, cost);
    this.total = addCall(this.total, counts, cost);
    this.owner?.parent.book(phase, agent, counts, cost);
  }

  record(record: UsageRecord): number | null {
    const cost = record.costUsd !== undefined ? record.costUsd : costOf(record.counts, record.price);
    // A sub-agent's calls all do its job: they count as execution, whatever part of its loop made them.
    const phase = this.owner ? "execution" : record.phase;
    this.book(phase, this.owner?.agent ?? MAIN_AGENT, record.counts, cost);
    const seconds = record.generationMs / 1000;
    this.bus.emit({
      type: "usage",
      phase,
      model: record.modelId,
      ...record.counts,
      ...(record.estimated && { estimated: true }),
      ...(record.contextTokens !== undefined && { context_tokens: record.contextTokens }),
      ...(record.cutToFit && { cut_to_fit: true }),
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
      this.book(call.phase, agentNameOf(call), counts, call.cost_usd);
    }
  }

  /** The session's ledger, above every sub-agent's. */
  get root(): UsageLedger {
    return this.owner ? this.owner.parent.root : this;
  }

  totals(): UsageTotals {
    return { ...this.total };
  }

  phases(): Partial<Record<Phase, UsageTotals>> {
    return plain(this.byPhase);
  }

  agents(): Record<string, UsageTotals> {
    return plain(this.byAgent) as Record<string, UsageTotals>;
  }
}
