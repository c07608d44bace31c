/**
 * Deterministic repair, tried before another model call (DESIGN.md, the loop): the project's own
 * fixers for lint and format failures, and a bounded search of small mutations (mutations.ts),
 * alone then in pairs, when a program's output or a test is off by a little.
 */
import { randomBytes } from "node:crypto";
import { readFile, rename, stat, unlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { type CheckOptions, type CheckResult, reportFrom, runCheck, type ValidationReport } from "./check.js";
import {
  applyMutations,
  disjoint,
  type EditedFile,
  type Mutation,
  type RankedMutation,
  rankMutations,
} from "./mutations.js";
import type { ValidationPlan } from "./plan.js";

export interface FixerAttempt {
  kind: "fixer";
  check: string;
  command: string;
  /** Whether the check passed when run again after the fixer. */
  passed: boolean;
  duration_ms: number;
}

export interface MutationAttempt {
  kind: "mutation";
  /** The file and line of its (first) mutation. */
  file: string;
  line: number;
  before: string;
  after: string;
  /** What it changed; a pair's two changes joined by " + ". */
  description: string;
  /** 1, or 2 for a pair of mutations applied together. */
  size: 1 | 2;
  /** Whether validation passed with the mutation; only a passing one is kept. */
  passed: boolean;
  /** Set when the failing check passed but another check then failed, so it was not kept. */
  broke?: string;
  duration_ms: number;
}

/**
 * Runs the fixer of every failed check that has one, then that check again. A fixer's changes
 * are kept even when the check still fails: fixers apply only the tool's safe fixes, and fewer
 * problems left is still less for the model to do. Returns the report with those checks re-run.
 */
export async function tryFixers(
  plan: ValidationPlan,
  report: ValidationReport,
  options: CheckOptions & { onAttempt?: (attempt: FixerAttempt) => void } = {},
): Promise<ValidationReport> {
  const cwd = options.cwd ?? plan.workspace;
  const runOptions = { ...options, cwd, goModule: plan.go_module };
  const checks: CheckResult[] = [];
  let changed = false;
  for (const result of report.checks) {
    if (result.passed || !result.fixer || options.signal?.aborted) {
      checks.push(result);
      continue;
    }
    const fixerRun = await runCheck(
      { name: `${result.name} fixer`, command: result.fixer, kind: result.kind, source: result.source },
      runOptions,
    );
    const rerun = await runCheck(result, runOptions);
    options.onAttempt?.({
      kind: "fixer",
      check: result.name,
      command: result.fixer,
      passed: rerun.passed,
      duration_ms: fixerRun.duration_ms + rerun.duration_ms,
    });
    checks.push(rerun);
    changed = true;
  }
  return changed ? reportFrom(checks) : report;
}

export interface MutationOptions {
  cwd: string;
  /** Validates the workspace as it is on disk (the failing check alone); true when it passes. */
  validate: () => Promise<boolean>;
  /**
   * Run once `validate` passes: true when nothing else broke (the other checks). A mutation that
   * fixes the failing check and breaks another is put back like one that fixed nothing.
   */
  confirm?: () => Promise<boolean>;
  onAttempt?: (attempt: MutationAttempt) => void;
  /** At most MAX_MUTATIONS. */
  maxAttempts?: number;
  /** Wall time for all the attempts; the one running when it is spent still finishes. */
  timeBudgetMs?: number;
  signal?: AbortSignal;
}

export interface MutationResult {
  fixed: boolean;
  /** The mutation (or pair) left in place, when one made validation pass. */
  kept?: MutationAttempt;
  attempts: MutationAttempt[];
  /** Why the search stopped short of every candidate, when it did. */
  stopped?: "count" | "time";
  duration_ms: number;
}

/** Attempts in all, single mutations and pairs together. */
export const MAX_MUTATIONS = 40;
/** The wall time all attempts may take by default. */
export const MUTATION_TIME_BUDGET_MS = 60_000;
/** The likeliest single mutations whose pairs are tried once no single one works. */
const PAIR_POOL = 8;

/** Replaces a file's content in one rename, so that nothing ever reads it half-written. */
async function replaceFile(file: string, content: Buffer | string, mode: number): Promise<void> {
  const temporary = path.join(
    path.dirname(file),
    `.${path.basename(file)}.cairn-${randomBytes(4).toString("hex")}`,
  );
  try {
    await writeFile(temporary, content, { mode });
    await rename(temporary, file);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
}

interface Original {
  bytes: Buffer;
  mode: number;
  absolute: string;
}

/** What to try, likeliest first: the edited lines' mutations, then the rest of the edited files', then pairs. */
function candidates(
  found: Map<string, { touched: RankedMutation[]; rest: RankedMutation[] }>,
): RankedMutation[][] {
  // Within a tier the files take turns, so that one file's many constants cannot use up the
  // budget before another's loop bound is tried.
  const interleave = (lists: RankedMutation[][]) =>
    lists
      .flatMap((list) => list.map((mutation, index) => ({ mutation, index })))
      .sort((a, b) => a.mutation.tier - b.mutation.tier || a.index - b.index)
      .map(({ mutation }) => mutation);
  const lists = [...found.values()];
  const touched = interleave(lists.map((list) => list.touched));
  const rest = interleave(lists.map((list) => list.rest));
  const singles = [...touched, ...rest];
  // Pairs of the likeliest structural changes (not bare constants, whose pairs are mostly noise).
  const pool = singles.filter((mutation) => mutation.tier < 3).slice(0, PAIR_POOL);
  const pairs: RankedMutation[][] = [];
  for (let i = 0; i < pool.length; i++)
    for (let j = i + 1; j < pool.length; j++)
      if (disjoint(pool[i]!, pool[j]!)) pairs.push([pool[i]!, pool[j]!]);
  const weight = (pair: RankedMutation[]) => pair[0]!.tier + pair[1]!.tier;
  pairs.sort((a, b) => weight(a) - weight(b));
  return [...singles.map((mutation) => [mutation]), ...pairs];
}

function attemptOf(change: Mutation[], passed: boolean, started: number, broke?: string): MutationAttempt {
  const [first] = change as [Mutation, ...Mutation[]];
  const shown = (text: string) =>
    text
      .split("\n")
      .map((line) => line.trim())
      .join(" ⏎ ");
  return {
    kind: "mutation",
    file: first.file,
    line: first.line,
    description: change.map((mutation) => mutation.description).join(" + "),
    before: change.map((mutation) => shown(mutation.before)).join(" … "),
    after: change.map((mutation) => shown(mutation.after) || "(removed)").join(" … "),
    size: change.length === 1 ? 1 : 2,
    passed,
    ...(broke ? { broke } : {}),
    duration_ms: Date.now() - started,
  };
}

/**
 * Tries mutations of the edited files, one at a time and then in pairs: each is written,
 * validated, and kept if the failing check passes and (`confirm`) nothing else broke; otherwise
 * the files' original bytes are put back before the next. Stops at the first kept, after
 * `maxAttempts`, or once the time budget is spent. Files that are not valid UTF-8 are left
 * alone, since their text could not be written back byte for byte.
 */
export async function tryMutations(edited: EditedFile[], options: MutationOptions): Promise<MutationResult> {
  const began = Date.now();
  const limit = Math.min(options.maxAttempts ?? MAX_MUTATIONS, MAX_MUTATIONS);
  const deadline = began + (options.timeBudgetMs ?? MUTATION_TIME_BUDGET_MS);
  const originals = new Map<string, Original>();
  const found = new Map<string, { touched: RankedMutation[]; rest: RankedMutation[] }>();
  for (const file of edited) {
    const absolute = path.resolve(options.cwd, file.path);
    const bytes = await readFile(absolute).catch(() => undefined);
    if (!bytes) continue;
    const text = bytes.toString("utf8");
    if (!Buffer.from(text, "utf8").equals(bytes)) continue;
    originals.set(file.path, { bytes, mode: (await stat(absolute)).mode & 0o7777, absolute });
    const touched = rankMutations(file.path, text, file.ranges);
    const changes = new Set(touched.map((mutation) => `${mutation.line}:${mutation.after}`));
    const rest = file.ranges?.length
      ? rankMutations(file.path, text).filter(
          (mutation) => !changes.has(`${mutation.line}:${mutation.after}`),
        )
      : [];
    found.set(file.path, { touched, rest });
  }
  const restore = async (files: Iterable<string>) => {
    for (const file of files) {
      const original = originals.get(file)!;
      await replaceFile(original.absolute, original.bytes, original.mode);
    }
  };

  const attempts: MutationAttempt[] = [];
  const all = candidates(found);
  for (const change of all) {
    if (attempts.length >= limit)
      return { fixed: false, attempts, stopped: "count", duration_ms: Date.now() - began };
    if (Date.now() >= deadline)
      return { fixed: false, attempts, stopped: "time", duration_ms: Date.now() - began };
    options.signal?.throwIfAborted();
    const files = [...new Set(change.map((mutation) => mutation.file))];
    const started = Date.now();
    let passed = false;
    let broke: string | undefined;
    for (const file of files) {
      const original = originals.get(file)!;
      const lines = applyMutations(
        original.bytes.toString("utf8").split("\n"),
        change.filter((mutation) => mutation.file === file),
      );
      await replaceFile(original.absolute, lines.join("\n"), original.mode);
    }
    try {
      passed = await options.validate();
      if (passed && options.confirm && !(await options.confirm())) {
        passed = false;
        broke = "the failing check passed, but another check failed with it";
      }
    } finally {
      if (!passed) await restore(files);
    }
    const attempt = attemptOf(change, passed, started, broke);
    attempts.push(attempt);
    options.onAttempt?.(attempt);
    if (passed) return { fixed: true, kept: attempt, attempts, duration_ms: Date.now() - began };
  }
  return { fixed: false, attempts, duration_ms: Date.now() - began };
}

/** One line on what the mutation search tried and found: for the next plan and the run's report. */
export function repairSummary(result: MutationResult): string {
  const pairs = result.attempts.filter((attempt) => attempt.size === 2).length;
  const tried = `${result.attempts.length} mutation${result.attempts.length === 1 ? "" : "s"}${pairs ? ` (${pairs} of them pairs)` : ""}`;
  const seconds = `${(result.duration_ms / 1000).toFixed(1)} s`;
  if (result.kept)
    return `Deterministic repair: tried ${tried} in ${seconds}; kept ${result.kept.description} at ${result.kept.file}:${result.kept.line}.`;
  const stop =
    result.stopped === "time"
      ? ", stopped by its time budget"
      : result.stopped === "count"
        ? ", stopped at its count"
        : "";
  return `Deterministic repair: tried ${tried} in ${seconds}${stop}; none fixed the failing check without breaking another.`;
}
