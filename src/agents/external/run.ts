import { existsSync } from "node:fs";
import path from "node:path";
import { findExecutable, spawnGroup } from "../../platform/processes.js";
import type { ToolContext } from "../../tools/types.js";
import { changedBetween, workTreeState } from "../changes.js";
import {
  type ExternalAgent,
  type ExternalReport,
  type ReportedUsage,
  UnreadableOutputError,
} from "./types.js";

/** How one external agent is to be run: the settings of its `agents.<name>` config entry. */
export interface ExternalRun {
  agent: ExternalAgent;
  /** Its program, found by `agentProgram` before anything was asked or run. */
  program: string;
  prompt: string;
  command?: string | undefined;
  model?: string | undefined;
  args: string[];
  timeoutMs: number;
  env: NodeJS.ProcessEnv;
  /** The workspace, the cancellation, and git for the files changed. */
  ctx: ToolContext;
}

export interface ExternalOutcome {
  ok: boolean;
  answer: string;
  /** Why it failed, said so the model can act on it. */
  error?: string;
  usage?: ReportedUsage;
  /** Undefined outside a git repository. */
  filesChanged: string[] | undefined;
  durationMs: number;
}

/** What is kept of its output: a reply can be long, but not without end. */
const MAX_STDOUT = 32 * 1024 * 1024;
const STDERR_TAIL = 2_000;

/**
 * Where an external agent's program is: a configured path (against the workspace) when it is
 * there, a name looked up on PATH; undefined when it is not installed.
 */
export function agentProgram(
  command: string,
  workspace: string,
  PATH: string | undefined,
): string | undefined {
  if (!command.includes("/")) return findExecutable(command, PATH);
  const file = path.resolve(workspace, command);
  return existsSync(file) ? file : undefined;
}

/** What to say of an agent whose program is not there: which, and the two ways to fix it. */
export function notInstalled(agent: ExternalAgent, command: string): string {
  const where = command.includes("/") ? "does not exist" : "is not on PATH";
  return `agent:${agent.name} is not installed: \`${command}\` ${where}. Install it (${agent.install}) or set agents.external.${agent.name}.command in the config to where it is.`;
}

/** The command line as a person would type it, for approval prompts and messages. */
export function commandText(
  run: Pick<ExternalRun, "agent" | "command" | "model" | "args" | "prompt">,
): string {
  const quote = (word: string) => (/^[\w./:@=-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);
  const line = run.agent.commandLine({ prompt: run.prompt, model: run.model, args: run.args });
  return [run.command ?? run.agent.command, ...line].map(quote).join(" ");
}

/**
 * Runs an external coding agent in the workspace, in its own process group: stopped at the
 * timeout or when the turn is cancelled, its answer and usage read from its output, the files
 * it changed from git status before and after. Whatever goes wrong (a crash, a hang, output it
 * cannot read) comes back as an outcome that says so; only a cancellation throws.
 */
export async function runExternal(run: ExternalRun): Promise<ExternalOutcome> {
  const { agent, ctx } = run;
  const target = `agent:${agent.name}`;
  const started = Date.now();
  const fail = (error: string, filesChanged?: string[]): ExternalOutcome => ({
    ok: false,
    answer: "",
    error,
    filesChanged,
    durationMs: Date.now() - started,
  });
  const file = run.program;
  const before = await workTreeState(ctx);
  let stdout = "";
  let stderr = "";
  const handle = spawnGroup(
    file,
    agent.commandLine({ prompt: run.prompt, model: run.model, args: run.args }),
    {
      cwd: ctx.workspace,
      env: run.env,
      timeoutMs: run.timeoutMs,
      signal: ctx.signal,
      onStdout: (chunk) => {
        if (stdout.length < MAX_STDOUT) stdout += chunk.toString("utf8");
      },
      onStderr: (chunk) => {
        stderr = (stderr + chunk.toString("utf8")).slice(-STDERR_TAIL);
      },
    },
  );
  let result: Awaited<typeof handle.done>;
  try {
    result = await handle.done;
  } catch (error) {
    return fail(`${target} could not be started (${file}): ${(error as Error).message}`);
  }
  if (result.aborted) throw ctx.signal.reason ?? new Error(`${target} was cancelled`);
  const after = before && (await workTreeState(ctx));
  const filesChanged = before && after ? changedBetween(before, after) : undefined;
  const said = stderr.trim() ? ` Its last words on stderr: ${stderr.trim()}` : "";
  if (result.timedOut)
    return fail(
      `${target} did not finish within ${Math.round(run.timeoutMs / 1000)} s and was stopped.${said}`,
      filesChanged,
    );
  let report: ExternalReport | undefined;
  let unreadable: string | undefined;
  try {
    report = agent.parse(stdout);
  } catch (error) {
    if (!(error instanceof UnreadableOutputError)) throw error;
    const shown = stdout.trim().slice(0, 300);
    unreadable = `${error.message}${shown ? `; it printed: ${shown}` : "; it printed nothing"}`;
  }
  const exit =
    result.exitCode === null ? `was killed by ${result.signal}` : `exited with code ${result.exitCode}`;
  const usage = report?.usage ? { usage: report.usage } : {};
  if (report?.error !== undefined)
    return { ...fail(`${target} failed: ${report.error}`, filesChanged), ...usage };
  if (result.exitCode !== 0) return { ...fail(`${target} ${exit}.${said}`, filesChanged), ...usage };
  if (!report)
    return fail(`${target} printed output cairn could not read (${unreadable}).${said}`, filesChanged);
  return { ok: true, answer: report.answer, ...usage, filesChanged, durationMs: Date.now() - started };
}
