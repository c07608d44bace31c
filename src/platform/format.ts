/**
 * Numbers as people read them in every renderer and report. Made on first use: loading the
 * locale's data costs tens of milliseconds, which a session's start should not pay.
 */
let integer: Intl.NumberFormat | undefined;

export function formatCost(cost: number | null): string {
  if (cost === null) return "cost unknown";
  if (cost === 0) return "$0.00";
  return cost < 0.01 ? `$${cost.toFixed(4)}` : `$${cost.toFixed(2)}`;
}

export function formatTokens(n: number): string {
  integer ??= new Intl.NumberFormat("en-US");
  return integer.format(n);
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const seconds = ms / 1000;
  if (seconds < 60) return `${seconds.toFixed(1)}s`;
  return `${Math.floor(seconds / 60)}m${Math.round(seconds % 60)}s`;
}
