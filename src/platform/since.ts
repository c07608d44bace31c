const HOUR = 3_600_000;
const UNIT_MS: Record<string, number> = { h: HOUR, d: 24 * HOUR, w: 7 * 24 * HOUR };

/** What `parseSince` reads, said the same way by the command line and the HTTP API. */
export const SINCE_FORMS = "a span (12h, 7d, 2w), a day (2026-11-01) or an ISO date-time";

/**
 * A moment to count from: a span back from now (`12h`, `7d`, `2w`), a local day (`2026-11-01`,
 * from its midnight) or an ISO date-time. Undefined when it is none of them.
 */
export function parseSince(text: string, now: Date = new Date()): Date | undefined {
  const value = text.trim();
  const span = /^(\d+)\s*([hdw])$/i.exec(value);
  if (span) return new Date(now.getTime() - Number(span[1]) * UNIT_MS[span[2]!.toLowerCase()]!);
  const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  // Date.parse would read a bare day as UTC midnight; the person means their own.
  if (day) return new Date(Number(day[1]), Number(day[2]) - 1, Number(day[3]));
  const time = /^\d{4}-\d{2}-\d{2}T/.test(value) ? Date.parse(value) : Number.NaN;
  return Number.isNaN(time) ? undefined : new Date(time);
}
