import { readFileSync } from "node:fs";
import path from "node:path";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { countBounded, EXACT_CHARS } from "../src/context/tokens.js";
import { ROOT } from "./lib/paths.js";
import { Random } from "./lib/random.js";
import type { BenchResult, Figure } from "./lib/report.js";
import { readSources } from "./lib/sources.js";
import { median, nowMs } from "./lib/stats.js";

export interface TokensOptions {
  /** Characters of each input. */
  chars: number;
  /** Characters of the largest input: one character repeated (issue 26: 10 MiB). */
  hugeChars: number;
  /** Characters of one character repeated given to the tokenizer alone, whose time grows with their square. */
  rawChars: number;
  runs: number;
}

/** `text` repeated and cut to `chars` characters. */
function sized(text: string, chars: number): string {
  return text.repeat(Math.ceil(chars / text.length)).slice(0, chars);
}

/** What enters a history: ordinary text, and what a hostile model or a careless tool may put there. */
function inputs(chars: number): Record<string, string> {
  const sources = readSources(path.join(ROOT, "src"), [".ts"])
    .map((file) => file.content)
    .join("\n");
  const random = new Random(26);
  const bytes = Buffer.from(Array.from({ length: Math.ceil((chars * 3) / 4) }, () => random.int(0, 255)));
  const minified = readFileSync(path.join(ROOT, "node_modules/chart.js/dist/chart.umd.min.js"), "utf8");
  return {
    "cairn's own sources": sized(sources, chars),
    "one character repeated": "a".repeat(chars),
    "base64 of random bytes": bytes.toString("base64").slice(0, chars),
    "a minified one-line file": sized(minified.replace(/\n/g, ""), chars),
    "spaces only": " ".repeat(chars),
  };
}

/**
 * The most CPU time the process spent between two turns of the event loop, measured by a task
 * that runs on every turn: how long the counter kept other work waiting. CPU time rather than
 * wall time, so that a busy machine taking the CPU away does not count as the counter's.
 */
class LongestStretch {
  longestMs = 0;
  private last = process.cpuUsage();
  private running = true;

  constructor() {
    setImmediate(() => this.tick());
  }

  private tick(): void {
    if (!this.running) return;
    const now = process.cpuUsage();
    const usedMs = (now.user - this.last.user + now.system - this.last.system) / 1000;
    this.longestMs = Math.max(this.longestMs, usedMs);
    this.last = now;
    setImmediate(() => this.tick());
  }

  /** Stops measuring; the longest stretch so far. */
  stop(): number {
    this.running = false;
    return this.longestMs;
  }
}

/** The median time cairn's counter takes over `text`, and its count. */
async function timeCount(text: string, runs: number): Promise<{ ms: number; tokens: number }> {
  const times: number[] = [];
  let tokens = 0;
  for (let run = 0; run < runs; run++) {
    const started = nowMs();
    tokens = await countBounded(countTokens, text);
    times.push(nowMs() - started);
  }
  return { ms: median(times), tokens };
}

/**
 * Counting the tokens of what enters a history (issue 26): the pathological inputs that took the
 * tokenizer minutes (a long run of one character is one pre-token, which BPE merges in time
 * growing with its square) beside ordinary source text of the same size, as ratios; the longest
 * stretch the counter held the event loop; and how far the estimate of a long text, counted
 * from samples, is from its exact count.
 */
export async function benchTokens(options: TokensOptions): Promise<BenchResult> {
  const started = nowMs();
  const texts = inputs(options.chars);
  // Warmed up on every kind of input first: compiling the tokenizer's code is paid once a process.
  for (const text of Object.values(texts)) await countBounded(countTokens, text.slice(0, EXACT_CHARS));
  const size = `${Math.round(options.chars / 1024)} KiB`;
  const stretches = new LongestStretch();
  // One after the other: counted at once, they would take turns and each would time the others too.
  const measured: Record<string, { ms: number; tokens: number }> = {};
  for (const [name, text] of Object.entries(texts)) measured[name] = await timeCount(text, options.runs);
  const huge = await timeCount("a".repeat(options.hugeChars), options.runs);
  const longestStretchMs = stretches.stop();

  const normal = measured["cairn's own sources"]!;
  const baseline = { name: `${size} of cairn's sources`, value: normal.ms };
  const figures: Figure[] = Object.entries(measured)
    .filter(([name]) => name !== "cairn's own sources")
    .map(([name, result]) => ({
      name: `count ${size} of ${name}`,
      value: result.ms,
      unit: "ms" as const,
      baseline,
      target: { on: "ratio" as const, op: "<=" as const, limit: 5 },
    }));
  figures.push({
    name: `count ${Math.round(options.hugeChars / 1048576)} MiB of one character`,
    value: huge.ms,
    unit: "ms",
    baseline,
    target: { on: "value", op: "<=", limit: 250 },
  });

  const raw = "b".repeat(options.rawChars);
  const rawStarted = nowMs();
  countTokens(raw);
  const rawMs = nowMs() - rawStarted;
  const bounded = await timeCount(raw, 1);
  figures.push({
    name: `count ${Math.round(options.rawChars / 1024)} KiB of one character`,
    value: bounded.ms,
    unit: "ms",
    baseline: { name: "gpt-tokenizer alone", value: rawMs },
  });
  // The counter gives way every 4 ms; what else lands in a stretch (a garbage collection of
  // these megabytes of input) counts too, so this is an upper bound of what it holds the loop.
  figures.push({
    name: "longest the counter kept the event loop (CPU time, GC included)",
    value: longestStretchMs,
    unit: "ms",
  });

  // Exact counts to judge the estimate by: only ordinary text, which the tokenizer counts in linear time.
  const exact = countTokens(texts["cairn's own sources"]!);
  const errorPercent = (100 * Math.abs(normal.tokens - exact)) / exact;
  figures.push({
    name: `estimate from samples beyond ${EXACT_CHARS / 1024} KiB: error on ${size} of sources`,
    value: options.chars > EXACT_CHARS ? errorPercent : null,
    unit: "%",
    target: { on: "value", op: "<=", limit: 3 },
    ...(options.chars > EXACT_CHARS ? {} : { note: `${size} is counted exactly` }),
  });

  return {
    id: "tokens",
    title: "8. token counting",
    figures,
    details: {
      chars: options.chars,
      per_input: Object.fromEntries(
        Object.entries(measured).map(([name, result]) => [name, { ms: result.ms, tokens: result.tokens }]),
      ),
      huge: { chars: options.hugeChars, ms: huge.ms, tokens: huge.tokens },
      tokenizer_alone: { chars: options.rawChars, ms: rawMs },
      sources_exact_tokens: exact,
      longest_stretch_ms: longestStretchMs,
    },
    durationMs: nowMs() - started,
  };
}
