import type { Status, UsageTotals } from "../events/types.js";
import { formatCost, formatTokens } from "../platform/format.js";

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
