/**
 * Deterministic repair, tried before another model call (DESIGN.md, the loop): the project's own
 * fixers for lint and format failures, and a small bounded set of single-site mutations of the
 * lines the last edit touched when a program's output is off by a little.
 */
import { randomBytes } from "node:crypto";
import { readFile, rename, stat, unlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { type CheckOptions, type CheckResult, reportFrom, runCheck, type ValidationReport } from "./check.js";
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
  file: string;
  line: number;
  before: string;
  after: string;
  description: string;
  /** Whether validation passed with the mutation; only a passing one is kept. */
  passed: boolean;
  duration_ms: number;
}

export type RepairAttempt = FixerAttempt | MutationAttempt;

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

export interface EditedFile {
  /** Relative to `cwd`, or absolute. */
  path: string;
  /** 1-based, inclusive. The whole file when absent. */
  ranges?: { start: number; end: number }[];
}

export interface Mutation {
  file: string;
  line: number;
  before: string;
  after: string;
  description: string;
}

export interface MutationOptions {
  cwd: string;
  /** Validates the workspace as it is on disk; true when it passes. */
  validate: () => Promise<boolean>;
  onAttempt?: (attempt: MutationAttempt) => void;
  /** At most MAX_MUTATIONS. */
  maxAttempts?: number;
  signal?: AbortSignal;
}

export interface MutationResult {
  fixed: boolean;
  /** The mutation left in place, when one made validation pass. */
  kept?: MutationAttempt;
  attempts: MutationAttempt[];
}

export const MAX_MUTATIONS = 20;

/** Tiers in the order they are tried: loop bounds are the likeliest off-by-one, any constant the least. */
type Tier = 0 | 1 | 2 | 3;

interface Candidate {
  tier: Tier;
  start: number;
  end: number;
  replacement: string;
  description: string;
}

/**
 * The line with string literals and comments blanked out (same length), so that no mutation
 * changes what a program prints by editing the text it prints.
 */
function maskLine(line: string, hashComments: boolean): string {
  let masked = "";
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const char = line[i]!;
    if (quote) {
      masked += "\0";
      if (char === "\\") {
        masked += i + 1 < line.length ? "\0" : "";
        i++;
      } else if (char === quote) quote = undefined;
      continue;
    }
    const startsComment = hashComments ? char === "#" : char === "/" && line[i + 1] === "/";
    if (startsComment) return masked + "\0".repeat(line.length - i);
    if (char === '"' || char === "'" || char === "`") {
      quote = char;
      masked += "\0";
      continue;
    }
    masked += char;
  }
  return masked;
}

/** The end of the bracketed group opening at `open`, or -1. */
function closingParen(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === "(" || text[i] === "[") depth++;
    else if (text[i] === ")" || text[i] === "]") {
      depth--;
      if (depth === 0) return i;
    }
  }
  return -1;
}

/** Top-level comma-separated arguments between `from` and `to`, with their positions, trimmed. */
function splitArgs(text: string, from: number, to: number): { start: number; end: number }[] {
  const args: { start: number; end: number }[] = [];
  let depth = 0;
  let argStart = from;
  for (let i = from; i <= to; i++) {
    const char = text[i];
    if (char === "(" || char === "[") depth++;
    else if (char === ")" || char === "]") depth--;
    if (i === to || (char === "," && depth === 0)) {
      let start = argStart;
      let end = i;
      while (start < end && /\s/.test(text[start]!)) start++;
      while (end > start && /\s/.test(text[end - 1]!)) end--;
      args.push({ start, end });
      argStart = i + 1;
    }
  }
  return args;
}

/** `n` → `n + 1`, `n - 1`; `n - 1` → `n`; a literal → its neighbours. */
function boundVariants(expression: string): string[] {
  if (/^\d+$/.test(expression)) {
    const value = Number(expression);
    return [String(value + 1), ...(value > 0 ? [String(value - 1)] : [])];
  }
  const offByOne = /^(.*?)\s*[-+]\s*1$/.exec(expression);
  if (offByOne) return [offByOne[1]!];
  return [`${expression} + 1`, `${expression} - 1`];
}

function rangeCandidates(line: string, masked: string): Candidate[] {
  const candidates: Candidate[] = [];
  for (const match of masked.matchAll(/\brange\(/g)) {
    const open = match.index + "range".length;
    const close = closingParen(masked, open);
    if (close === -1) continue;
    const args = splitArgs(masked, open + 1, close);
    const text = (arg: { start: number; end: number }): string => line.slice(arg.start, arg.end);
    const stopVariants = (stop: { start: number; end: number }) => {
      for (const variant of boundVariants(text(stop))) {
        candidates.push({
          tier: 0,
          ...stop,
          replacement: variant,
          description: `range stop ${text(stop)} → ${variant}`,
        });
      }
    };
    if (args.length === 1 && args[0]!.end > args[0]!.start) {
      const stop = args[0]!;
      stopVariants(stop);
      const oneBased = `1, ${text(stop)} + 1`;
      candidates.push({
        tier: 0,
        ...stop,
        replacement: oneBased,
        description: `range(${text(stop)}) → range(${oneBased})`,
      });
    } else if (args.length === 2 || args.length === 3) {
      const [begin, stop] = [args[0]!, args[1]!];
      stopVariants(stop);
      if (/^\d+$/.test(text(begin))) {
        for (const variant of boundVariants(text(begin))) {
          candidates.push({
            tier: 0,
            ...begin,
            replacement: variant,
            description: `range start ${text(begin)} → ${variant}`,
          });
        }
      }
    }
  }
  // Rust's `a..b` and `a..=b`; not JavaScript's `...spread`.
  for (const match of masked.matchAll(/(?<!\.)\.\.(=?)(?=[\w(])/g)) {
    const replacement = match[1] ? ".." : "..=";
    const end = match.index + match[0].length;
    candidates.push({
      tier: 0,
      start: match.index,
      end,
      replacement,
      description: `${match[0]} → ${replacement}`,
    });
  }
  return candidates;
}

function comparisonCandidates(masked: string): Candidate[] {
  // Spaces on both sides keep generics (`Array<T>`), arrows and shifts out.
  const flip: Record<string, string> = { "<": "<=", "<=": "<", ">": ">=", ">=": ">" };
  return [...masked.matchAll(/(?<=\s)(<=|>=|<|>)(?=\s)/g)].map((match) => ({
    tier: 1 as const,
    start: match.index,
    end: match.index + match[0].length,
    replacement: flip[match[0]]!,
    description: `${match[0]} → ${flip[match[0]]}`,
  }));
}

function lengthCandidates(line: string, masked: string): Candidate[] {
  const length = /(\blen\([^()]*\)|\.length\b|\.len\(\)|\.size\(\)|\.count\(\))(\s*-\s*1\b)?/g;
  return [...masked.matchAll(length)].map((match) => {
    const whole = line.slice(match.index, match.index + match[0].length);
    const base = line.slice(match.index, match.index + match[1]!.length);
    const replacement = match[2] ? base : `${base} - 1`;
    return {
      tier: 2 as const,
      start: match.index,
      end: match.index + match[0].length,
      replacement,
      description: `${whole} → ${replacement}`,
    };
  });
}

function constantCandidates(masked: string): Candidate[] {
  return [...masked.matchAll(/(?<![\w.])\d+(?![\w.])/g)].flatMap((match) => {
    // `n - 1` → `n - 0` is the same program as the `n` the length and range rules already try.
    const added = /[-+]\s*$/.test(masked.slice(0, match.index));
    return boundVariants(match[0])
      .filter((replacement) => !(added && replacement === "0"))
      .map((replacement) => ({
        tier: 3 as const,
        start: match.index,
        end: match.index + match[0].length,
        replacement,
        description: `constant ${match[0]} → ${replacement}`,
      }));
  });
}

function touchedLines(lineCount: number, ranges: EditedFile["ranges"]): number[] {
  if (!ranges || ranges.length === 0) return Array.from({ length: lineCount }, (_, i) => i + 1);
  const lines = new Set<number>();
  for (const { start, end } of ranges) {
    for (let line = Math.max(1, start); line <= Math.min(lineCount, end); line++) lines.add(line);
  }
  return [...lines].sort((a, b) => a - b);
}

type Ranked = Mutation & { tier: Tier };

function rankedMutations(file: string, text: string, ranges: EditedFile["ranges"]): Ranked[] {
  const hashComments = /\.(py|rb|sh|pl|r)$/i.test(file);
  const lines = text.split("\n");
  const found: Ranked[] = [];
  const seen = new Set<string>();
  for (const number of touchedLines(lines.length, ranges)) {
    const line = lines[number - 1]!;
    const masked = maskLine(line, hashComments);
    const candidates = [
      ...rangeCandidates(line, masked),
      ...comparisonCandidates(masked),
      ...lengthCandidates(line, masked),
      ...constantCandidates(masked),
    ];
    for (const candidate of candidates) {
      const after = line.slice(0, candidate.start) + candidate.replacement + line.slice(candidate.end);
      if (after === line || seen.has(`${number}\n${after}`)) continue;
      seen.add(`${number}\n${after}`);
      found.push({
        tier: candidate.tier,
        file,
        line: number,
        before: line,
        after,
        description: candidate.description,
      });
    }
  }
  return found.sort((a, b) => a.tier - b.tier);
}

/**
 * Single-site mutations of the given lines of one file's text, likeliest first (loop bounds,
 * then comparisons, then lengths, then any integer constant), each distinct line once.
 */
export function proposeMutations(file: string, text: string, ranges?: EditedFile["ranges"]): Mutation[] {
  return rankedMutations(file, text, ranges).map(({ tier: _tier, ...mutation }) => mutation);
}

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

/**
 * Tries mutations of the edited lines one at a time: each is written, validated, and kept if
 * validation passes; otherwise the file's original bytes are put back before the next one. Stops
 * at the first that passes. Files that are not valid UTF-8 are left alone, since their text
 * could not be written back byte for byte.
 */
export async function tryMutations(edited: EditedFile[], options: MutationOptions): Promise<MutationResult> {
  const limit = Math.min(options.maxAttempts ?? MAX_MUTATIONS, MAX_MUTATIONS);
  const originals = new Map<string, { bytes: Buffer; mode: number; absolute: string }>();
  const candidates: (Ranked & { index: number })[] = [];
  for (const file of edited) {
    const absolute = path.resolve(options.cwd, file.path);
    const bytes = await readFile(absolute).catch(() => undefined);
    if (!bytes) continue;
    const text = bytes.toString("utf8");
    if (!Buffer.from(text, "utf8").equals(bytes)) continue;
    originals.set(file.path, { bytes, mode: (await stat(absolute)).mode & 0o7777, absolute });
    candidates.push(
      ...rankedMutations(file.path, text, file.ranges).map((mutation, index) => ({ ...mutation, index })),
    );
  }
  // Likeliest first across all files, and within a tier the files take turns, so that one
  // file's many constants cannot use up the budget before another's loop bound is tried.
  const ordered = candidates.sort((a, b) => a.tier - b.tier || a.index - b.index).slice(0, limit);

  const attempts: MutationAttempt[] = [];
  for (const mutation of ordered) {
    options.signal?.throwIfAborted();
    const original = originals.get(mutation.file)!;
    const lines = original.bytes.toString("utf8").split("\n");
    lines[mutation.line - 1] = mutation.after;
    const started = Date.now();
    let passed = false;
    await replaceFile(original.absolute, lines.join("\n"), original.mode);
    try {
      passed = await options.validate();
    } finally {
      if (!passed) await replaceFile(original.absolute, original.bytes, original.mode);
    }
    const attempt: MutationAttempt = {
      kind: "mutation",
      file: mutation.file,
      line: mutation.line,
      description: mutation.description,
      before: mutation.before.trim(),
      after: mutation.after.trim(),
      passed,
      duration_ms: Date.now() - started,
    };
    attempts.push(attempt);
    options.onAttempt?.(attempt);
    if (passed) return { fixed: true, kept: attempt, attempts };
  }
  return { fixed: false, attempts };
}
