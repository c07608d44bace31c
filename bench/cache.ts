import path from "node:path";
import { classify, intent, notReady, onePlan, ready, runScript } from "../test/helpers/runScript.js";
import type { ScriptedTurn } from "../test/support/scriptedServer.js";
import { type ToolLoadOptions, toolLoadFigures } from "./cacheToolLoad.js";
import { codingSession, SNAPSHOT_REPLY } from "./lib/codingSession.js";
import { ROOT } from "./lib/paths.js";
import { type CacheShare, cacheShare, type PromptTurn, promptTurns } from "./lib/prompt.js";
import type { BenchResult, Figure } from "./lib/report.js";
import { finished, runSession, withSideCalls } from "./lib/session.js";
import { readSources } from "./lib/sources.js";
import { nowMs } from "./lib/stats.js";

export interface CacheOptions {
  /** Model turns of the `cairn do` session. */
  doTurns: number;
  /** Tool-loop turns in each of the two iterations of the `cairn run` session. */
  runTurns: number;
  /** The sessions that load a tool mid-way (issue 38). */
  toolLoad: ToolLoadOptions;
}

/**
 * A window small enough that the `do` session compacts a few times, so compaction turns show
 * up to be reported apart.
 */
const SMALL_WINDOW = 24_000;

async function doSession(turns: number): Promise<PromptTurn[]> {
  const files = readSources(path.join(ROOT, "src"), [".ts"], { maxBytes: 12_000 }).map((file) => ({
    ...file,
    path: `src/${file.path}`,
  }));
  const record = await runSession({
    command: "do",
    task: "mark one line in each module as checked",
    script: withSideCalls(codingSession(files, turns), () => SNAPSHOT_REPLY),
    files: Object.fromEntries(files.map((file) => [file.path, file.content])),
    config: { max_tool_calls: turns, models: { "openai/gpt-4o": { context_window: SMALL_WINDOW } } },
  });
  finished(record);
  return promptTurns(record.requests, record.events);
}

const SUM_REPO = {
  "package.json": JSON.stringify({ name: "fixture", type: "module", scripts: { test: "node --test" } }),
  "src/sum.js": "export function sum(values) {\n  return values.reduce((a, b) => a - b, 0);\n}\n",
  "test/sum.test.js":
    'import assert from "node:assert/strict";\nimport { test } from "node:test";\nimport { sum } from "../src/sum.js";\n\ntest("sum adds", () => {\n  assert.equal(sum([1, 2, 3]), 6);\n});\n',
};

/** Looks around, fixes the reducer, and answers; the first review then asks for one more look. */
function runExecution(turns: number, round: number): ScriptedTurn[] {
  const script: ScriptedTurn[] = [];
  for (let t = 0; t < turns - 1; t++) {
    const calls = [
      { name: "read_file", args: { path: "src/sum.js" } },
      { name: "grep", args: { pattern: "sum\\(" } },
      { name: "list_files", args: {} },
    ];
    script.push({ toolCalls: [calls[t % calls.length]!] });
  }
  if (round === 1) {
    script.push({
      toolCalls: [
        {
          name: "edit_file",
          args: { path: "src/sum.js", old_string: "(a, b) => a - b", new_string: "(a, b) => a + b" },
        },
      ],
    });
  }
  script.push({ text: round === 1 ? "Changed the reducer to add." : "Checked the reducer again." });
  return script;
}

async function runSessionTurns(turns: number): Promise<PromptTurn[]> {
  const record = await runSession({
    command: "run",
    task: "the sum test fails, fix it",
    script: runScript({
      classification: [classify()],
      intent: [intent(["src/sum.js"])],
      plan: [onePlan("Fix the reducer in sum", ["src/sum.js"]), onePlan("Check the reducer", ["src/sum.js"])],
      execution: [...runExecution(turns, 1), ...runExecution(turns, 2)],
      review: [notReady("Check the reducer once more."), ready],
    }),
    files: SUM_REPO,
  });
  finished(record);
  return promptTurns(record.requests, record.events);
}

function byConversation(turns: readonly PromptTurn[]): Record<string, CacheShare> {
  const names = [...new Set(turns.map((turn) => turn.conversation))];
  return Object.fromEntries(
    names.map((name) => [name, cacheShare(turns.filter((t) => t.conversation === name))]),
  );
}

/**
 * How much of each request's prompt is a byte-identical prefix of the previous request in the
 * same conversation, which is what a provider's prompt cache can bill at the cached rate.
 */
export async function benchCache(options: CacheOptions): Promise<BenchResult> {
  const started = nowMs();
  const sessions = { do: await doSession(options.doTurns), run: await runSessionTurns(options.runTurns) };
  const figures: Figure[] = [];
  const details: Record<string, unknown> = {};
  for (const [name, turns] of Object.entries(sessions)) {
    const steady = cacheShare(turns.filter((turn) => !turn.compaction));
    const compaction = cacheShare(turns.filter((turn) => turn.compaction));
    figures.push({
      name: `cairn ${name}: cached prefix share, ${steady.requests} requests`,
      value: steady.share,
      unit: "%",
      baseline: { name: "append-only", value: steady.ideal },
      target: { on: "value", op: ">=", limit: 98 },
    });
    figures.push({
      name: `cairn ${name}: share lost to changes early in the prompt`,
      value: steady.share === null || steady.ideal === null ? null : steady.ideal - steady.share,
      unit: "%",
      target: { on: "value", op: "<=", limit: 0.1 },
    });
    if (turns.some((turn) => turn.compaction)) {
      figures.push({
        name: `cairn ${name}: compaction turns, ${compaction.requests} requests`,
        value: compaction.share,
        unit: "%",
        baseline: { name: "append-only", value: compaction.ideal },
        note: "reported apart",
      });
    }
    details[name] = {
      requests: turns.length,
      steady,
      compaction,
      by_conversation: byConversation(turns.filter((turn) => !turn.compaction)),
    };
  }
  const load = await toolLoadFigures(options.toolLoad);
  figures.push(...load.figures);
  details.tool_load = load.details;
  return {
    id: "cache",
    title: "3. prompt-cache friendliness",
    figures,
    details,
    durationMs: nowMs() - started,
  };
}
