import { findEdit } from "../src/tools/editMatch.js";
import { EDIT_CATEGORIES, type EditCase, editCorpus } from "./editCorpus.js";
import { type BenchResult, type Breakdown, type KindCounts, kindRow } from "./lib/report.js";
import { nowMs } from "./lib/stats.js";

export interface EditOptions {
  perCategory: number;
}

export type EditOutcome = "applied" | "refused" | "wrong" | "missed";

function stripTrailing(text: string): string {
  return text.replace(/[ \t]+(?=\r?\n|$)/g, "");
}

/**
 * Right when the file reads as meant. Trailing blanks on the edited lines may differ (a matcher
 * that tolerates them has no way to know which the model wanted), but nothing outside them may;
 * a case without a known region (the small files of the peer cases) is compared whole.
 */
export function judge(edit: EditCase, result: string | null): EditOutcome {
  if (edit.expected === null) return result === null ? "refused" : "wrong";
  if (result === null) return "missed";
  if (result === edit.expected) return "applied";
  const [start, end] = edit.region ?? [0, edit.content.length];
  const untouched =
    result.startsWith(edit.content.slice(0, start)) && result.endsWith(edit.content.slice(end));
  return untouched && stripTrailing(result) === stripTrailing(edit.expected) ? "applied" : "wrong";
}

/** What a harness without tolerances does: replace old_string when it occurs exactly once. */
export function exactReplace(content: string, oldString: string, newString: string): string | null {
  const first = content.indexOf(oldString);
  if (oldString === "" || first === -1 || content.indexOf(oldString, first + 1) !== -1) return null;
  return content.slice(0, first) + newString + content.slice(first + oldString.length);
}

function cairnEdit(edit: EditCase): string | null {
  const result = findEdit(edit.content, edit.oldString, edit.newString, {
    replaceAll: edit.replaceAll ?? false,
  });
  return result.ok ? result.newContent : null;
}

type Tally = Record<EditOutcome, number>;
const emptyTally = (): Tally => ({ applied: 0, refused: 0, wrong: 0, missed: 0 });
const totalOf = (tally: Tally) => tally.applied + tally.refused + tally.wrong + tally.missed;
const countsOf = (tally: Tally): KindCounts => ({
  right: tally.applied + tally.refused,
  missed: tally.missed,
  wrong: tally.wrong,
  total: totalOf(tally),
});

/** Share of the cases judged right (applied as meant, or refused when they had to be), in per cent. */
function correct(tally: Tally): number {
  return (100 * (tally.applied + tally.refused)) / totalOf(tally);
}

/** One row per kind of case: how many cairn got right, refused when it should have applied, or got wrong. */
function byKindTable(
  corpus: readonly EditCase[],
  byCategory: Record<string, { cairn: Tally; exact: Tally }>,
): Breakdown {
  const rows = EDIT_CATEGORIES.flatMap((category) => {
    const tallies = byCategory[category];
    if (!tallies) return [];
    const cases = corpus.filter((edit) => edit.category === category);
    const peers = cases.filter((edit) => edit.language === "peer tests").length;
    const refusals = cases.filter((edit) => edit.expected === null).length;
    const must = refusals === 0 ? "apply" : refusals === cases.length ? "refuse" : "both";
    return [
      kindRow(
        [category, must, `${cases.length - peers} + ${peers}`],
        countsOf(tallies.cairn),
        countsOf(tallies.exact),
      ),
    ];
  });
  return {
    title: "4. edit robustness, per kind (cases: generated + translated from other agents' tests)",
    columns: ["kind", "must", "cases", "right", "wrongly refused", "wrong", "exact match: right"],
    rows,
  };
}

/** The repository a translated case's test is in: the first word of its source. */
const projectOf = (edit: EditCase) => edit.source.split(" ")[0]!;

interface PeerTally {
  cases: number;
  /** What cairn wrote is what the other agent's test expects. */
  agree: number;
  /** cairn does otherwise on purpose, as its case says, and did what it says. */
  deliberate: number;
  missed: number;
  wrong: number;
}

/**
 * The cases translated from other agents' tests, per project: how many come out as that
 * project's test expects, how many cairn deliberately does otherwise (and does as it says), and
 * how many it refuses or writes wrongly against its own expectation.
 */
function peerTable(corpus: readonly EditCase[], results: ReadonlyMap<EditCase, string | null>) {
  const tallies = new Map<string, PeerTally>();
  const all: PeerTally = { cases: 0, agree: 0, deliberate: 0, missed: 0, wrong: 0 };
  for (const edit of corpus.filter((edit) => edit.sourceExpected !== undefined)) {
    const project = projectOf(edit);
    const tally = tallies.get(project) ?? { cases: 0, agree: 0, deliberate: 0, missed: 0, wrong: 0 };
    tallies.set(project, tally);
    const result = results.get(edit) ?? null;
    const source = judge({ ...edit, expected: edit.sourceExpected ?? null }, result);
    const own = judge(edit, result);
    const key =
      source === "applied" || source === "refused"
        ? "agree"
        : own === "applied" || own === "refused"
          ? "deliberate"
          : own;
    for (const t of [tally, all]) {
      t.cases++;
      t[key]++;
    }
  }
  const row = (name: string, t: PeerTally) => [
    name,
    String(t.cases),
    `${t.agree}/${t.cases}`,
    String(t.deliberate),
    String(t.missed),
    String(t.wrong),
  ];
  const breakdown: Breakdown = {
    title: "4b. edit cases from other agents' tests, per project",
    columns: [
      "project",
      "cases",
      "as its test expects",
      "deliberately otherwise",
      "wrongly refused",
      "wrong",
    ],
    rows: [
      ...[...tallies].sort(([a], [b]) => a.localeCompare(b)).map(([name, t]) => row(name, t)),
      row("all", all),
    ],
  };
  return { breakdown, all };
}

/**
 * A corpus of edits made from real files in several languages, with the slips models make,
 * and of cases translated from other agents' edit tests, through cairn's matcher and through
 * plain exact replacement.
 */
export async function benchEdits(options: EditOptions): Promise<BenchResult> {
  const started = nowMs();
  const corpus = editCorpus(options.perCategory);
  const tallies = { cairn: emptyTally(), exact: emptyTally() };
  const peerTallies = { cairn: emptyTally(), exact: emptyTally() };
  const byCategory: Record<string, { cairn: Tally; exact: Tally }> = {};
  const byLanguage: Record<string, number> = {};
  const wrong: Array<{ id: string; source: string; who: string }> = [];
  const results = new Map<EditCase, string | null>();
  for (const edit of corpus) {
    byCategory[edit.category] ??= { cairn: emptyTally(), exact: emptyTally() };
    byLanguage[edit.language] = (byLanguage[edit.language] ?? 0) + 1;
    const written = cairnEdit(edit);
    results.set(edit, written);
    const outcomes = {
      cairn: judge(edit, written),
      exact: judge(edit, exactReplace(edit.content, edit.oldString, edit.newString)),
    };
    for (const who of ["cairn", "exact"] as const) {
      tallies[who][outcomes[who]]++;
      byCategory[edit.category]![who][outcomes[who]]++;
      if (edit.language === "peer tests") peerTallies[who][outcomes[who]]++;
      if (outcomes[who] === "wrong") wrong.push({ id: edit.id, source: edit.source, who });
    }
  }
  const toApply = corpus.filter((edit) => edit.expected !== null).length;
  const toRefuse = corpus.length - toApply;
  const percent = (n: number, of: number) => (100 * n) / of;
  const peers = peerTable(corpus, results);
  const exactMatch = (value: number) => ({ name: "exact match", value });
  return {
    id: "edits",
    title: "4. edit robustness",
    figures: [
      {
        name: `cases right, of ${corpus.length}`,
        value: correct(tallies.cairn),
        unit: "%",
        baseline: exactMatch(correct(tallies.exact)),
        target: { on: "value", op: ">=", limit: 97 },
      },
      {
        name: `applied as meant, of ${toApply}`,
        value: percent(tallies.cairn.applied, toApply),
        unit: "%",
        baseline: exactMatch(percent(tallies.exact.applied, toApply)),
      },
      {
        name: `refused as they must be, of ${toRefuse}`,
        value: percent(tallies.cairn.refused, toRefuse),
        unit: "%",
        baseline: exactMatch(percent(tallies.exact.refused, toRefuse)),
      },
      {
        name: `cases from other agents' tests right, of ${totalOf(peerTallies.cairn)}`,
        value: correct(peerTallies.cairn),
        unit: "%",
        baseline: exactMatch(correct(peerTallies.exact)),
      },
      {
        name: `cases from other agents' tests as their project expects, of ${peers.all.cases}`,
        value: percent(peers.all.agree, peers.all.cases),
        unit: "%",
        note: `${peers.all.deliberate} deliberately otherwise`,
      },
      {
        name: "wrong applications",
        value: tallies.cairn.wrong,
        unit: "count",
        baseline: exactMatch(tallies.exact.wrong),
        target: { on: "value", op: "<=", limit: 0 },
      },
    ],
    breakdowns: [byKindTable(corpus, byCategory), peers.breakdown],
    details: {
      cases: corpus.length,
      categories: EDIT_CATEGORIES,
      by_language: byLanguage,
      totals: tallies,
      by_category: byCategory,
      wrong,
    },
    durationMs: nowMs() - started,
  };
}
