/**
 * Numbers and words as people read them in every renderer and report, the dashboard in the
 * browser included (so nothing here imports Node's modules). The number format is made on first
 * use: loading the locale's data costs tens of milliseconds, which a session's start should not pay.
 */
let integer: Intl.NumberFormat | undefined;

/** `1 file`, `2 files`. */
export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

/** The first line with something on it, trimmed; cut with an ellipsis past `max` characters. */
export function firstLine(text: string, max = Number.POSITIVE_INFINITY): string {
  const line =
    text
      .split("\n")
      .find((l) => l.trim())
      ?.trim() ?? "";
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

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
