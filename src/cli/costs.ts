import { costTable } from "../model/costTable.js";
import { sumCostTotals } from "../model/usage.js";
import { parseSince, SINCE_FORMS } from "../platform/since.js";
import { homePath } from "../platform/text.js";
import { COST_GROUPS, type CostGroup, type Store } from "../store/sessions.js";
import { localTime } from "../ui/table.js";
import { type CommandIo, columnsOf, usageError } from "./sessions.js";

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
    return usageError(io, `--since takes ${SINCE_FORMS}, not "${options.since}"`);
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
  io.out.write(
    `Model calls${when}, by ${by}:\n\n${costTable(groups, by, "plain", showKey, columnsOf(io))}\n`,
  );
  return 0;
}
