import { rmSync } from "node:fs";
import { makeHome, makeRepo } from "../test/helpers/cli.js";
import { hasTmux, Terminal } from "../test/helpers/terminal.js";
import type { BenchResult, Figure } from "./lib/report.js";
import { median, nowMs } from "./lib/stats.js";

export interface QuitOptions {
  runs: number;
}

/** A Node program that quits on the first key: what the terminal and the measuring cost on their own. */
const QUIT_ON_A_KEY = [
  process.execPath,
  "-e",
  "process.stdin.setRawMode(true); process.stdin.once('data', () => process.exit(0))",
];

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Milliseconds from a key sent to the terminal to the program's exit, as its shell saw it. `ready`
 * is waited for on the screen first; `before` are keys pressed then, a moment apart.
 */
async function timeToExit(
  terminal: Terminal,
  ready: string | RegExp,
  before: string[],
  last: string,
): Promise<number> {
  try {
    await terminal.waitFor(ready, { timeoutMs: 30_000 });
    for (const key of before) {
      terminal.press(key);
      await pause(300);
    }
    const sent = Date.now();
    terminal.press(last);
    const { at } = await terminal.exit(10_000);
    return at - sent;
  } finally {
    terminal.close();
  }
}

/**
 * Quitting the terminal UI: from the second Ctrl-C to the process gone, in a real terminal (tmux),
 * on an idle chat; beside a Node program that quits on its first key, in the same terminal.
 */
export async function benchQuit(options: QuitOptions): Promise<BenchResult> {
  const started = nowMs();
  if (!hasTmux) {
    return {
      id: "quit",
      title: "quitting the terminal UI",
      figures: [{ name: "Ctrl-C Ctrl-C to exit", value: null, unit: "ms", note: "tmux is not installed" }],
      details: {},
      durationMs: nowMs() - started,
    };
  }
  const [repo, home] = await Promise.all([makeRepo({}), makeHome()]);
  const cairn: number[] = [];
  const baseline: number[] = [];
  try {
    const env = { OPENAI_API_KEY: "unused: no message is sent" };
    for (let run = 0; run < options.runs; run++) {
      baseline.push(
        await timeToExit(
          Terminal.start({ args: [], command: QUIT_ON_A_KEY, cwd: repo, home }),
          /\$|^/,
          [],
          "q",
        ),
      );
      cairn.push(
        await timeToExit(
          Terminal.start({ args: ["--model", "openai/gpt-4o"], cwd: repo, home, env }),
          "Ask cairn",
          ["C-c"],
          "C-c",
        ),
      );
    }
  } finally {
    rmSync(repo, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  }
  const figures: Figure[] = [
    {
      name: "Ctrl-C Ctrl-C to exit (median)",
      value: median(cairn),
      unit: "ms",
      baseline: { name: "a program that quits on a key", value: median(baseline) },
      target: { on: "value", op: "<=", limit: 200 },
      note: `${options.runs} runs in tmux; the slowest ${Math.max(...cairn)} ms`,
    },
  ];
  return {
    id: "quit",
    title: "quitting the terminal UI",
    figures,
    details: { cairn_ms: cairn, baseline_ms: baseline },
    durationMs: nowMs() - started,
  };
}
