import path from "node:path";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { configSchema } from "../src/config/schema.js";
import { modelInfo } from "../src/model/catalog.js";
import { codingSession, SNAPSHOT_REPLY } from "./lib/codingSession.js";
import { ROOT } from "./lib/paths.js";
import { cacheShare, promptTurns } from "./lib/prompt.js";
import { Random } from "./lib/random.js";
import type { BenchResult } from "./lib/report.js";
import { finished, runSession, withSideCalls } from "./lib/session.js";
import { readSources, type SourceFile } from "./lib/sources.js";
import { nowMs, sum } from "./lib/stats.js";

export interface ContextOptions {
  turns: number;
}

const MODEL = "openai/gpt-4o";

/**
 * Large library files from node_modules, a seeded choice of them: reading a dozen overflows a
 * 128k window, which is what makes compaction (or, without it, trimming) happen at all.
 */
function largeFiles(count: number): SourceFile[] {
  const random = new Random(23);
  const files = readSources(path.join(ROOT, "node_modules"), [".js"], { maxBytes: 80_000, minLines: 400 });
  const large = files.filter((file) => file.content.length >= 30_000);
  const chosen: SourceFile[] = [];
  while (chosen.length < count && large.length > 0)
    chosen.push(...large.splice(random.int(0, large.length - 1), 1));
  return chosen.map((file, k) => ({ path: `lib/module${k}.js`, content: file.content }));
}

interface ContextRun {
  requests: number;
  compactions: number;
  /** Prompt tokens of every request, the compaction calls' included. */
  tokensSent: number;
  peakTokens: number;
  cachedShare: number | null;
}

async function session(files: SourceFile[], turns: number, compaction: boolean): Promise<ContextRun> {
  const record = await runSession({
    command: "do",
    task: "mark one line in each module as checked",
    script: withSideCalls(codingSession(files, turns), () => SNAPSHOT_REPLY),
    files: Object.fromEntries(files.map((file) => [file.path, file.content])),
    config: { max_tool_calls: turns, context: { compaction } },
  });
  finished(record);
  const tokens = promptTurns(record.requests, record.events).map((turn) =>
    countTokens(turn.prompt.toString("utf8")),
  );
  const steady = promptTurns(record.requests, record.events).filter((turn) => !turn.compaction);
  return {
    requests: record.requests.length,
    compactions: record.events.filter((event) => event.type === "compaction").length,
    tokensSent: sum(tokens),
    peakTokens: Math.max(...tokens),
    cachedShare: cacheShare(steady).share,
  };
}

/**
 * One fixed task run twice, with compaction on and off: what it sends in all (counted with the
 * o200k tokenizer over the prompt as sent) and how full the window gets at its fullest.
 */
export async function benchContext(options: ContextOptions): Promise<BenchResult> {
  const started = nowMs();
  const window = modelInfo(MODEL, configSchema.parse({})).contextWindow;
  const files = largeFiles(Math.ceil(options.turns / 2));
  const on = await session(files, options.turns, true);
  const off = await session(files, options.turns, false);
  const share = (tokens: number) => (100 * tokens) / window;
  return {
    id: "context",
    title: `7. context, ${options.turns}-turn task`,
    figures: [
      {
        name: "tokens sent, compaction on",
        value: on.tokensSent,
        unit: "tokens",
        baseline: { name: "compaction off", value: off.tokensSent },
      },
      {
        name: "window used at the peak, compaction on",
        value: share(on.peakTokens),
        unit: "%",
        baseline: { name: "compaction off", value: share(off.peakTokens) },
      },
      {
        name: "cached prefix share outside compactions, compaction on",
        value: on.cachedShare,
        unit: "%",
        baseline: { name: "compaction off", value: off.cachedShare },
      },
    ],
    details: { model: MODEL, window, on, off },
    durationMs: nowMs() - started,
  };
}
