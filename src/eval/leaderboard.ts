import { readFile } from "node:fs/promises";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { ConfigError } from "../platform/errors.js";
import { formatCost, formatDuration } from "../platform/format.js";
import { type Column, renderTable } from "../platform/table.js";
import { closest } from "../platform/text.js";
import type { EvalReport } from "./report.js";

/**
 * One row of aider's published polyglot leaderboard, as its data file writes it
 * (aider/website/_data/polyglot_leaderboard.yml); fields not used here are ignored.
 */
const entrySchema = z.object({
  model: z.coerce.string(),
  dirname: z.coerce.string().optional(),
  /** Percent, first try. */
  pass_rate_1: z.number().optional(),
  /** Percent after the second try, given the tests' output: the leaderboard's "percent correct". */
  pass_rate_2: z.number(),
  test_cases: z.number().optional(),
  edit_format: z.coerce.string().optional(),
  command: z.coerce.string().optional(),
  date: z.coerce.string().optional(),
  versions: z.coerce.string().optional(),
  total_cost: z.number().optional(),
  seconds_per_case: z.number().optional(),
});

export type LeaderboardEntry = z.infer<typeof entrySchema>;

/** The number of exercises of the benchmark, which the leaderboard's rates are over. */
const POLYGLOT_EXERCISES = 225;

/** The entries of a leaderboard file: aider's YAML, or the same as JSON (a list, or {entries: [...]}) . */
export async function readLeaderboard(file: string): Promise<LeaderboardEntry[]> {
  let document: unknown;
  try {
    document = parseYaml(await readFile(file, "utf8"));
  } catch (error) {
    throw new ConfigError(`cannot read the leaderboard ${file}: ${(error as Error).message}`);
  }
  const list = Array.isArray(document) ? document : (document as { entries?: unknown } | null)?.entries;
  const parsed = z.array(entrySchema).min(1).safeParse(list);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(
      `${file}: expected a list of leaderboard rows with \`model\` and \`pass_rate_2\`, as aider's ` +
        `polyglot_leaderboard.yml has (${issue?.path.join(".") || "the file"}: ${issue?.message}).`,
    );
  }
  return parsed.data;
}

/** A model's name reduced to compare across spellings: `anthropic/claude-3-5-sonnet-20241022` → `claude-3-5-sonnet-20241022`. */
function modelKey(name: string): string {
  return name
    .toLowerCase()
    .replace(/^.*\//, "")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");
}

/** The names a row goes by: its model, and the model its aider command line ran. */
function keysOf(entry: LeaderboardEntry): string[] {
  const ran = /--model\s+(\S+)/.exec(entry.command ?? "")?.[1];
  return [modelKey(entry.model), ...(ran ? [modelKey(ran)] : [])];
}

const describe = (entry: LeaderboardEntry) =>
  `${entry.model}${entry.edit_format ? ` (${entry.edit_format})` : ""}${entry.date ? `, ${entry.date}` : ""}${entry.dirname ? ` — ${entry.dirname}` : ""}`;

/**
 * The leaderboard's row for the report's model: the one `chosen` names (a model or a dirname),
 * else the one whose model is the report's (exactly, else a dated version of it). Several rows,
 * or none, is an error listing what there is to choose from.
 */
export function leaderboardEntry(
  model: string,
  entries: readonly LeaderboardEntry[],
  chosen?: string,
): LeaderboardEntry {
  const choose = "choose one with --leaderboard-model <model or dirname>";
  if (chosen) {
    const wanted = chosen.toLowerCase();
    const found = entries.filter(
      (e) => e.model.toLowerCase() === wanted || e.dirname?.toLowerCase() === wanted,
    );
    if (found.length === 1) return found[0]!;
    if (found.length > 1)
      throw new ConfigError(
        `--leaderboard-model ${chosen} names ${found.length} rows; give its dirname: ${found.map(describe).join("; ")}.`,
      );
    const near = closest(
      chosen,
      entries.map((e) => e.model),
    );
    throw new ConfigError(
      `the leaderboard has no row for ${chosen}${near ? ` (did you mean ${near}?)` : ""}.`,
    );
  }
  const key = modelKey(model);
  const exact = entries.filter((e) => keysOf(e).includes(key));
  const dated = entries.filter((e) =>
    keysOf(e).some((k) => k.startsWith(`${key}-`) || key.startsWith(`${k}-`)),
  );
  const found = exact.length ? exact : dated;
  if (found.length === 1) return found[0]!;
  if (found.length > 1) {
    throw new ConfigError(
      `the leaderboard has ${found.length} rows for ${model}; ${choose}:\n${found.map((e) => `  ${describe(e)}`).join("\n")}`,
    );
  }
  const near = closest(
    key,
    entries.map((e) => modelKey(e.model)),
  );
  throw new ConfigError(
    `the leaderboard has no row for ${model}${near ? ` (nearest: ${entries.find((e) => modelKey(e.model) === near)?.model})` : ""}; ${choose}.`,
  );
}

/** A report set beside the leaderboard's row for its model, with what makes the two less than comparable. */
export interface BesideLeaderboard {
  report: Pick<
    EvalReport,
    "suite" | "model" | "cairn_version" | "date" | "tries" | "tasks_filter" | "totals"
  >;
  entry: LeaderboardEntry;
  /** Why the figures are not like for like, in words. */
  caveats: string[];
}

// How a run of cairn differs from a run of aider's harness (benchmark/benchmark.py and its
// Dockerfile in aider's repository) on the same exercises, whatever the run.

/** The largest difference, in every run of cairn's agent. */
const FEEDBACK_CAVEAT =
  "test feedback in the first try: cairn's agent runs the exercise's tests during its first try (they are " +
  "its check), so its pass@1 already holds test feedback, which aider's model gets only in its second try; " +
  "aider's pass_rate_1 has none. Set cairn's pass@1 beside pass_rate_2 as much as beside pass_rate_1";

/** benchmark.py times `coder.run` alone: the unit tests run after it. */
const TIME_CAVEAT =
  "time: aider's seconds per exercise count only its model's turns (its test runs are outside them); cairn's " +
  "time per exercise is the agent's whole session, its own test runs included";

/** How grading here differs from grading there: the toolchains (docs/eval.md lists them). */
const TOOLCHAIN_CAVEAT =
  "toolchains: cairn grades with this machine's (Debian's Go, Rust 1.63 with Debian's packaged crates only, " +
  "JDK 17 with JUnit 5.9 and AssertJ 3.14 without Gradle, Node's test runner with Jest's expect, unittest); " +
  "aider's harness ran Go 1.21.5, rustup's latest Rust with crates.io, JDK 21 with Gradle, Jest 29 and pytest";

export function besideLeaderboard(
  report: EvalReport,
  entries: readonly LeaderboardEntry[],
  chosen?: string,
): BesideLeaderboard {
  const entry = leaderboardEntry(report.model, entries, chosen);
  const caveats: string[] = [];
  if (report.grade_only)
    caveats.push(
      `no agent ran: this report grades the exercises' ${report.grade_only === "reference" ? "reference solutions" : "stubs as given"}`,
    );
  else caveats.push(FEEDBACK_CAVEAT);
  const exercises = entry.test_cases ?? POLYGLOT_EXERCISES;
  if (report.suite !== "polyglot" || report.tasks_filter || report.totals.tasks !== exercises) {
    caveats.push(
      `not the same exercises: this report is ${report.suite}, ${report.totals.tasks} task(s)` +
        `${report.tasks_filter ? ` (--tasks ${report.tasks_filter.join(",")})` : ""}; the leaderboard's row is the whole polyglot benchmark, ${exercises}`,
    );
  }
  if (report.totals.skipped) {
    caveats.push(`${report.totals.skipped} exercise(s) could not be graded here and count as not solved`);
  }
  if (report.tries === 1 && !report.grade_only) {
    caveats.push(
      "one try: the leaderboard ranks by pass@2 (percent correct, after a second try with the test output); run with --tries 2 for that figure",
    );
  }
  caveats.push(TOOLCHAIN_CAVEAT);
  if (!report.grade_only) caveats.push(TIME_CAVEAT);
  const { suite, model, cairn_version, date, tries, tasks_filter, totals } = report;
  return { report: { suite, model, cairn_version, date, tries, tasks_filter, totals }, entry, caveats };
}

const rate = (solved: number | null, tasks: number) =>
  solved === null ? "n/a" : `${((solved / Math.max(1, tasks)) * 100).toFixed(1)}% (${solved}/${tasks})`;
const percentOf = (value: number | undefined) => (value === undefined ? "n/a" : `${value.toFixed(1)}%`);

/** The side-by-side table for people: cairn's run and the leaderboard's row, figure by figure. */
export function leaderboardMarkdown({ report, entry, caveats }: BesideLeaderboard): string {
  type Row = { what: string; cairn: string; aider: string };
  const t = report.totals;
  const cases = entry.test_cases ?? POLYGLOT_EXERCISES;
  const perRun = (n: number) => n / Math.max(1, t.run);
  const rows: Row[] = [
    {
      what: "model",
      cairn: report.model,
      aider: `${entry.model}${entry.edit_format ? ` (${entry.edit_format} edits)` : ""}`,
    },
    { what: "run by", cairn: `cairn ${report.cairn_version}`, aider: `aider ${entry.versions ?? ""}`.trim() },
    { what: "date", cairn: report.date.slice(0, 10), aider: entry.date ?? "" },
    { what: "exercises", cairn: String(t.tasks), aider: String(cases) },
    { what: "pass@1 (first try)", cairn: rate(t.solved, t.tasks), aider: percentOf(entry.pass_rate_1) },
    {
      what: "pass@2 (after a second try with the test output; the leaderboard's percent correct)",
      cairn: rate(t.solved_2, t.tasks),
      aider: percentOf(entry.pass_rate_2),
    },
    {
      what: "cost",
      cairn: formatCost(t.cost_usd),
      aider: entry.total_cost ? formatCost(entry.total_cost) : "n/a",
    },
    {
      what: "cost per exercise",
      cairn: formatCost(perRun(t.cost_usd)),
      aider: entry.total_cost ? formatCost(entry.total_cost / cases) : "n/a",
    },
    {
      what: "time per exercise",
      cairn: formatDuration(perRun(t.task_time_ms)),
      aider: entry.seconds_per_case === undefined ? "n/a" : formatDuration(entry.seconds_per_case * 1000),
    },
  ];
  const columns: Column<Row>[] = [
    { header: "", cell: (r) => r.what },
    { header: "cairn", cell: (r) => r.cairn },
    { header: "aider leaderboard", cell: (r) => r.aider },
  ];
  const table = renderTable(columns, rows, "markdown");
  return caveats.length
    ? `${table}\n\nNot like for like:\n${caveats.map((c) => `- ${c}`).join("\n")}`
    : table;
}
