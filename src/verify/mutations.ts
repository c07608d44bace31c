/**
 * The mutations deterministic repair tries (the Codur note's local repair, widened): small,
 * likely fixes of a program that is off by a little. Loop bounds moved by one, comparisons
 * flipped, a guard that skips items (`if …: continue`) removed, an operand dropped (`/ 100`) or
 * its operator changed, lengths and constants moved by one. Each is a change of whole lines, so
 * two can be applied together.
 */

export interface EditedFile {
  /** Relative to `cwd`, or absolute. */
  path: string;
  /** 1-based, inclusive. The whole file when absent. */
  ranges?: { start: number; end: number }[];
}

export interface Mutation {
  file: string;
  /** The first line it replaces, 1-based. */
  line: number;
  /** How many lines it replaces: 1, or the lines of a guard statement it removes. */
  span: number;
  /** The lines it replaces, as they were. */
  before: string;
  /** What replaces them: one line, or "" when they are removed. */
  after: string;
  description: string;
}

/**
 * Tiers in the order they are tried: loop bounds are the likeliest off-by-one; comparisons,
 * guards and stray operands next; lengths and operators after; any constant the least.
 */
export type Tier = 0 | 1 | 2 | 3;

export type RankedMutation = Mutation & { tier: Tier };

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

/**
 * `x / 100` → `x`: an operand that should not be there, such as a percentage divided twice. The
 * operand is a number after a value (a name, a number or a closing bracket), so signs and
 * exponents are left alone.
 */
function operandCandidates(line: string, masked: string): Candidate[] {
  const operand = /(?<=[\w)\]])(\s*)(\/\/|\/|\*|%|\+|-)\s*(\d+(?:\.\d+)?)(?![\w.(])/g;
  return [...masked.matchAll(operand)]
    .filter(
      (match) =>
        !/\d[eE]$/.test(masked.slice(0, match.index)) && masked[match.index + match[0].length] !== "*",
    )
    .map((match) => ({
      tier: 1 as const,
      start: match.index,
      end: match.index + match[0].length,
      replacement: "",
      description: `drop ${line.slice(match.index, match.index + match[0].length).trim()}`,
    }));
}

/** `a + b` → `a - b`, `*` ↔ `/`, Python's `//` → `/`: spaces on both sides, as for comparisons. */
function operatorCandidates(masked: string, python: boolean): Candidate[] {
  const swap: Record<string, string> = { "+": "-", "-": "+", "*": "/", "/": "*", "//": "/" };
  return [...masked.matchAll(/(?<=\s)(\/\/|[-+*/])(?=\s)/g)]
    .filter((match) => match[0] !== "//" || python)
    .map((match) => ({
      tier: 2 as const,
      start: match.index,
      end: match.index + match[0].length,
      replacement: swap[match[0]]!,
      description: `${match[0]} → ${swap[match[0]]}`,
    }));
}

const PY_GUARD = /^\s*if\b.*:\s*(continue|break)\s*$/;
const PY_GUARD_HEAD = /^(\s*)if\b.*:\s*$/;
const C_GUARD = /^\s*if\s*\(.*\)\s*(?:\{\s*)?(continue|break)\s*;?\s*\}?\s*$/;
const C_GUARD_HEAD = /^(\s*)if\s*\(.*\)\s*\{\s*$/;
const JUMP = /^\s*(continue|break)\s*;?\s*$/;

function indentOf(line: string): number {
  return /^\s*/.exec(line)![0].length;
}

/**
 * A guard that skips the rest of a loop's body (`if x < 0: continue`), removed whole: one line,
 * or its `if` line with a body of only the jump (and, in braces, the closing one). Found on the
 * masked lines, so a guard inside a string or a comment is none.
 */
function guardAt(
  masked: string[],
  index: number,
  python: boolean,
): { span: number; jump: string } | undefined {
  const line = masked[index]!;
  const single = (python ? PY_GUARD : C_GUARD).exec(line);
  if (single) return { span: 1, jump: single[1]! };
  const head = (python ? PY_GUARD_HEAD : C_GUARD_HEAD).exec(line);
  const body = masked[index + 1];
  const jump = body === undefined ? undefined : JUMP.exec(body);
  if (!head || !jump || indentOf(body!) <= head[1]!.length) return undefined;
  if (python) {
    const after = masked[index + 2];
    // An `else` after it belongs to this `if`: removing the `if` alone would orphan it.
    if (after !== undefined && indentOf(after) === head[1]!.length && /^\s*(elif|else)\b/.test(after))
      return undefined;
    return { span: 2, jump: jump[1]! };
  }
  return masked[index + 2]?.trim() === "}" ? { span: 3, jump: jump[1]! } : undefined;
}

/** The lines to look at: those an edit touched, or the whole file. */
function touchedLines(lineCount: number, ranges: EditedFile["ranges"]): number[] {
  if (!ranges || ranges.length === 0) return Array.from({ length: lineCount }, (_, i) => i + 1);
  const lines = new Set<number>();
  for (const { start, end } of ranges) {
    for (let line = Math.max(1, start); line <= Math.min(lineCount, end); line++) lines.add(line);
  }
  return [...lines].sort((a, b) => a - b);
}

/**
 * Mutations of the given lines of one file's text, each distinct change once, likeliest tier
 * first (in line order within a tier).
 */
export function rankMutations(file: string, text: string, ranges?: EditedFile["ranges"]): RankedMutation[] {
  const python = /\.py$/i.test(file);
  const hashComments = /\.(py|rb|sh|pl|r)$/i.test(file);
  const lines = text.split("\n");
  const masked = lines.map((line) => maskLine(line, hashComments));
  const found: RankedMutation[] = [];
  const seen = new Set<string>();
  const add = (mutation: RankedMutation) => {
    const key = `${mutation.line}:${mutation.span}\n${mutation.after}`;
    if (seen.has(key)) return;
    seen.add(key);
    found.push(mutation);
  };
  const wanted = touchedLines(lines.length, ranges);
  for (const number of wanted) {
    const line = lines[number - 1]!;
    const guard = guardAt(masked, number - 1, python);
    if (guard) {
      const before = lines.slice(number - 1, number - 1 + guard.span);
      add({
        tier: 1,
        file,
        line: number,
        span: guard.span,
        before: before.join("\n"),
        after: "",
        description: `remove the guard \`${before[0]!.trim()}\`${guard.span > 1 ? ` (and its ${guard.jump})` : ""}`,
      });
    }
    const mask = masked[number - 1]!;
    const candidates = [
      ...rangeCandidates(line, mask),
      ...comparisonCandidates(mask),
      ...operandCandidates(line, mask),
      ...lengthCandidates(line, mask),
      ...operatorCandidates(mask, python),
      ...constantCandidates(mask),
    ];
    for (const candidate of candidates) {
      const after = line.slice(0, candidate.start) + candidate.replacement + line.slice(candidate.end);
      if (after === line) continue;
      add({
        tier: candidate.tier,
        file,
        line: number,
        span: 1,
        before: line,
        after,
        description: candidate.description,
      });
    }
  }
  return found.sort((a, b) => a.tier - b.tier);
}

/** The mutations of `rankMutations`, without their tiers: what a caller shows or tries. */
export function proposeMutations(file: string, text: string, ranges?: EditedFile["ranges"]): Mutation[] {
  return rankMutations(file, text, ranges).map(({ tier: _tier, ...mutation }) => mutation);
}

/** Two mutations that change none of the same lines, so both can be applied. */
export function disjoint(a: Mutation, b: Mutation): boolean {
  return a.file !== b.file || a.line + a.span <= b.line || b.line + b.span <= a.line;
}

/**
 * The file's lines with mutations applied (all of the same file, pairwise disjoint): each
 * replaced from the bottom up, so the line numbers of the others still hold.
 */
export function applyMutations(lines: readonly string[], mutations: readonly Mutation[]): string[] {
  const result = [...lines];
  for (const mutation of [...mutations].sort((a, b) => b.line - a.line)) {
    // A removed statement goes with its line: an empty line left behind would still be a body.
    result.splice(mutation.line - 1, mutation.span, ...(mutation.after === "" ? [] : [mutation.after]));
  }
  return result;
}
