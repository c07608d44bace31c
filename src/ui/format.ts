import type { Status, UsageTotals } from "../events/types.js";

const integer = new Intl.NumberFormat("en-US");

export function formatCost(cost: number | null): string {
  if (cost === null) return "cost unknown";
  if (cost === 0) return "$0.00";
  return cost < 0.01 ? `$${cost.toFixed(4)}` : `$${cost.toFixed(2)}`;
}

export function formatTokens(n: number): string {
  return integer.format(n);
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const seconds = ms / 1000;
  if (seconds < 60) return `${seconds.toFixed(1)}s`;
  return `${Math.floor(seconds / 60)}m${Math.round(seconds % 60)}s`;
}

/** The closing usage line: tokens in (cached), out, speed, dollars. */
export function usageLine(totals: UsageTotals, tokensPerSecond: number | null): string {
  const parts = [
    `${formatTokens(totals.input_tokens)} in (${formatTokens(totals.cached_input_tokens)} cached)`,
    `${formatTokens(totals.output_tokens)} out`,
  ];
  if (tokensPerSecond !== null) parts.push(`${tokensPerSecond.toFixed(1)} tok/s`);
  parts.push(formatCost(totals.cost_usd));
  return `usage: ${parts.join(" · ")}`;
}

/** How each status reads in a status line, in every renderer. */
export const STATUS_LABEL: Record<Status, string> = {
  thinking: "thinking",
  running_tools: "running tools",
  validating: "validating",
  reviewing: "reviewing",
  summarizing: "summarizing",
};
