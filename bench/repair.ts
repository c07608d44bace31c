import { isDeepStrictEqual } from "node:util";
import type { z } from "zod";
import { prepareArguments } from "../src/tools/args.js";
import { type BenchResult, type Breakdown, type KindCounts, kindRow } from "./lib/report.js";
import { nowMs } from "./lib/stats.js";
import { RECOVERABLE, type RepairCase, repairCorpus, UNRECOVERABLE } from "./repairCorpus.js";

export interface RepairOptions {
  /** How many of the sample calls to spoil in every way. */
  samples: number;
}

export type RepairOutcome = "recovered" | "rejected" | "wrong" | "missed";

type Prepare = (
  raw: string,
  schema: z.ZodType,
  finishReason: string,
) => { ok: true; value: unknown } | { ok: false };

/** What a harness without repair does: JSON.parse, then the schema, whatever the finish reason. */
export const plainParse: Prepare = (raw, schema) => {
  try {
    const result = schema.safeParse(JSON.parse(raw));
    return result.success ? { ok: true, value: result.data } : { ok: false };
  } catch {
    return { ok: false };
  }
};

/**
 * Right when the call comes out as meant, or is sent back when nothing in it says what was
 * meant. Arguments that come out different from what was meant are wrong, however valid; so is
 * running a call that had to go back, even where it happens to hold what was meant (a call
 * closed after the length limit cut it may have had more to say).
 */
export function judge(entry: RepairCase, prepare: Prepare): RepairOutcome {
  const result = prepare(entry.raw, entry.schema, entry.finishReason);
  if (!result.ok) return entry.mustReject ? "rejected" : "missed";
  return !entry.mustReject && isDeepStrictEqual(result.value, entry.intended) ? "recovered" : "wrong";
}

type Tally = Record<RepairOutcome, number>;
const emptyTally = (): Tally => ({ recovered: 0, rejected: 0, wrong: 0, missed: 0 });

/** One row per kind of slip: right, wrongly rejected and wrong, by cairn and by JSON.parse. */
function byKindTable(
  corpus: readonly RepairCase[],
  byKind: Record<string, { cairn: Tally; plain: Tally }>,
): Breakdown {
  const counts = (tally: Tally): KindCounts => ({
    right: tally.recovered + tally.rejected,
    missed: tally.missed,
    wrong: tally.wrong,
    total: tally.recovered + tally.rejected + tally.missed + tally.wrong,
  });
  const rows = [...RECOVERABLE, ...UNRECOVERABLE].flatMap((kind) => {
    const tallies = byKind[kind];
    if (!tallies) return [];
    const finish = [...new Set(corpus.filter((entry) => entry.kind === kind).map((e) => e.finishReason))];
    const must = (UNRECOVERABLE as readonly string[]).includes(kind) ? "reject" : "recover";
    return [kindRow([kind, must, finish.join(", ")], counts(tallies.cairn), counts(tallies.plain))];
  });
  return {
    title: "5. tool-call repair, per kind",
    columns: ["kind", "must", "finish reason", "right", "wrongly rejected", "wrong", "JSON.parse: right"],
    rows,
  };
}

/**
 * Malformed tool-call arguments of the kinds models send, each with what was meant, through
 * cairn's repair and validation and through plain JSON.parse with the same schema.
 */
export async function benchRepair(options: RepairOptions): Promise<BenchResult> {
  const started = nowMs();
  const corpus = repairCorpus(options.samples);
  const tallies = { cairn: emptyTally(), plain: emptyTally() };
  const byKind: Record<string, { cairn: Tally; plain: Tally }> = {};
  const wrong: Array<{ id: string; raw: string; who: string }> = [];
  for (const entry of corpus) {
    byKind[entry.kind] ??= { cairn: emptyTally(), plain: emptyTally() };
    const outcomes = { cairn: judge(entry, prepareArguments), plain: judge(entry, plainParse) };
    for (const who of ["cairn", "plain"] as const) {
      tallies[who][outcomes[who]]++;
      byKind[entry.kind]![who][outcomes[who]]++;
      if (outcomes[who] === "wrong") wrong.push({ id: entry.id, raw: entry.raw, who });
    }
  }
  const recoverable = corpus.filter((entry) => !entry.mustReject).length;
  const toReject = corpus.length - recoverable;
  const percent = (n: number, of: number) => (100 * n) / of;
  const baseline = (value: number) => ({ name: "JSON.parse", value });
  return {
    id: "repair",
    title: "5. tool-call repair",
    figures: [
      {
        name: `recovered as meant, of ${recoverable}`,
        value: percent(tallies.cairn.recovered, recoverable),
        unit: "%",
        baseline: baseline(percent(tallies.plain.recovered, recoverable)),
      },
      {
        name: `rejected as they must be, of ${toReject}`,
        value: percent(tallies.cairn.rejected, toReject),
        unit: "%",
        baseline: baseline(percent(tallies.plain.rejected, toReject)),
      },
      {
        name: "wrong recoveries",
        value: tallies.cairn.wrong,
        unit: "count",
        baseline: baseline(tallies.plain.wrong),
        target: { on: "value", op: "<=", limit: 0 },
      },
    ],
    breakdowns: [byKindTable(corpus, byKind)],
    details: { cases: corpus.length, totals: tallies, by_kind: byKind, wrong },
    durationMs: nowMs() - started,
  };
}
