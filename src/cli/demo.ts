import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Conversation } from "../agent/conversation.js";
import { withStoredKeys } from "../config/credentials.js";
import { loadConfig } from "../config/load.js";
import { resolveModelId } from "../model/providers.js";
import { ConfigError } from "../platform/errors.js";
import { wrapToWidth } from "../platform/wrap.js";
import type { CommonOptions } from "./options.js";
import { runWithRenderer } from "./runSession.js";
import { flagsFrom } from "./task.js";

const TASK = "The tests fail. Find out why and fix the code.";

/** The model the recording was made with, as cairn names it; served by the bundled recorder. */
const RECORDED_MODEL = "ollama/qwen2.5-coder:7b";

const FILES: Record<string, string> = {
  "package.json": `${JSON.stringify({ name: "cairn-demo", type: "module", scripts: { test: "node --test" } }, null, 2)}\n`,
  "src/stats.js": `// Summary statistics for a list of numbers.
export function mean(values) {
  if (values.length === 0) return 0;
  let total = 0;
  for (let i = 1; i < values.length; i++) total += values[i];
  return total / values.length;
}

export function max(values) {
  return Math.max(...values);
}
`,
  "test/stats.test.js": `import assert from "node:assert/strict";
import { test } from "node:test";
import { max, mean } from "../src/stats.js";

test("mean of a list", () => {
  assert.equal(mean([2, 4, 6]), 4);
});

test("max of a list", () => {
  assert.equal(max([3, 9, 1]), 9);
});
`,
};

function makeDemoRepo(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "cairn-demo-"));
  for (const [file, content] of Object.entries(FILES)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), content);
  }
  const git = (...args: string[]) => execFileSync("git", args, { cwd: dir, stdio: "ignore" });
  try {
    git("init", "-q");
    git("add", ".");
    git("-c", "user.name=cairn demo", "-c", "user.email=demo@cairn.invalid", "commit", "-qm", "demo project");
  } catch {
    // The demo works without git; only git_status and git_diff would have nothing to show.
  }
  return dir;
}

function realModelAvailable(
  options: CommonOptions & { recorded?: boolean },
  config: Parameters<typeof resolveModelId>[0],
): string | undefined {
  if (options.recorded) return undefined;
  try {
    return resolveModelId(config, withStoredKeys(process.env, config));
  } catch (error) {
    if (error instanceof ConfigError) return undefined;
    throw error;
  }
}

/** The demo's task, taken to a verified finish. */
const runDemoTask = (conversation: Conversation) =>
  conversation.submit({ type: "user_input", mode: "run", text: TASK });

/**
 * `cairn demo`: a throwaway repository with a failing test, fixed by cairn. With an API key
 * (or --model) it is a real run; without one the model is a recording served locally, so the
 * whole loop can be seen on a machine with no key and no network.
 */
export async function demoCommand(options: DemoOptions): Promise<number> {
  const workspace = makeDemoRepo();
  try {
    return await runDemo(workspace, options);
  } finally {
    leave(workspace, options);
  }
}

interface DemoOptions extends CommonOptions {
  recorded?: boolean;
  keep?: boolean;
}

/** The demo's repository is a throwaway: removed once the run is over, unless asked to stay. */
function leave(workspace: string, options: DemoOptions): void {
  if (options.keep) {
    process.stderr.write(`The demo repository stays at ${workspace}.\n`);
    return;
  }
  rmSync(workspace, { recursive: true, force: true });
  process.stderr.write("Removed the demo repository (cairn demo --keep leaves it to look at).\n");
}

async function runDemo(workspace: string, options: DemoOptions): Promise<number> {
  const flags = { ...flagsFrom(options), approval: options.approval ?? "auto" };
  const { config } = await loadConfig({ cwd: workspace, configFile: options.config, flags });
  const realModel = realModelAvailable(options, config);
  if (realModel) {
    process.stderr.write(
      `Demo repository: ${workspace}\nModel: ${realModel} (a real run; it costs what the usage line says)\n`,
    );
    return runWithRenderer({
      cwd: workspace,
      flags: { ...flags, model: realModel },
      mode: "run",
      options,
      run: runDemoTask,
    });
  }
  const { startScriptedServer } = await import("../replay/server.js");
  const { demoRecording } = await import("../replay/demoRecording.js");
  const server = await startScriptedServer(demoRecording);
  const intro =
    `Demo repository: ${workspace}\n` +
    `No API key found, so the model is a RECORDING of ${RECORDED_MODEL}, replayed by a local server: ` +
    "the tools, edits, test runs and accounting are real; the model's words are not live.\n" +
    "Set OPENROUTER_API_KEY, ANTHROPIC_API_KEY, OPENAI_API_KEY or GOOGLE_GENERATIVE_AI_API_KEY (or pass --model) for a real run.";
  const columns = process.stderr.isTTY ? process.stderr.columns : 0;
  process.stderr.write(`${columns ? wrapToWidth(intro, columns) : intro}\n\n`);
  try {
    return await runWithRenderer({
      cwd: workspace,
      flags: { ...flags, model: RECORDED_MODEL, baseUrl: server.ollamaBaseUrl },
      mode: "run",
      options,
      run: runDemoTask,
    });
  } finally {
    await server.close();
  }
}
