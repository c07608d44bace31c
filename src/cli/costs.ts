import { COST_GROUPS, type CostGroup, type Store, sumCostTotals } from "../store/sessions.js";
import { costTable, homePath, localTime } from "../ui/table.js";
import { type CommandIo, usageError } from "./sessions.js";

const HOUR = 3_600_000;
const UNIT_MS: Record<string, number> = { h: HOUR, d: 24 * HOUR, w: 7 * 24 * HOUR };

/**
 * `--since`: a span back from now (`12h`, `7d`, `2w`), a local day (`2026-11-01`, from its
 * midnight) or an ISO date-time. Undefined when it is none of them.
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

export interface CostsOptions {
  since?: string;
  by?: string;
  json?: boolean;
  /** The moment `--since 7d` counts back from. */
  now?: Date;
}

/** `cairn costs`: every model call's tokens and dollars, summed by day, model, phase, agent or workspace. */
export function costsCommand(store: Store, options: CostsOptions, io: CommandIo): number {
  const by = options.by ?? "day";
  if (!COST_GROUPS.includes(by as CostGroup))
    return usageError(io, `--by must be one of ${COST_GROUPS.join(", ")}, not "${by}"`);
  const since = options.since === undefined ? undefined : parseSince(options.since, options.now);
  if (options.since !== undefined && !since)
    return usageError(
      io,
      `--since takes a span (12h, 7d, 2w), a day (2026-11-01) or an ISO date-time, not "${options.since}"`,
    );
  const groups = store.costs({ groupBy: by as CostGroup, ...(since ? { since } : {}) });
  if (options.json) {
    const result = { by, since: since?.toISOString() ?? null, groups, total: sumCostTotals(groups) };
    io.out.write(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  }
  const when = since ? ` since ${localTime(since.toISOString())}` : "";
  if (groups.length === 0) {
    io.out.write(`No model calls recorded${when}.\n`);
    return 0;
  }
  const showKey = by === "workspace" ? (key: string) => homePath(key) : undefined;
  io.out.write(`Model calls${when}, by ${by}:\n\n${costTable(groups, by, "plain", showKey)}\n`);
  return 0;
}
