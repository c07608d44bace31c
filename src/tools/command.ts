import { stat } from "node:fs/promises";
import { z } from "zod";
import { findExecutable, spawnGroup } from "../platform/processes.js";
import { splitCommandLine } from "../platform/shell/split.js";
import { HeadTailBuffer } from "../platform/truncate.js";
import { needsNetwork } from "../safety/commandKinds.js";
import { cleanEnvironment, environmentPolicy } from "../safety/environment.js";
import { resolveInWorkspace } from "../safety/paths.js";
import { hideEnvironmentSecrets } from "../safety/redact.js";
import { type WrappedCommand, wrapCommand } from "../safety/sandbox.js";
import { toolDescription } from "./descriptions.js";
import { ToolError } from "./toolError.js";
import { defineTool, type ToolContext } from "./types.js";

/** How long a stopped command gets to clean up after SIGTERM before SIGKILL. */
const KILL_GRACE_MS = 2_000;

/** Colour codes and cursor movement cost tokens and mean nothing to a model. */
const ANSI_ESCAPE = /\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/g;

/** Progress bars redraw a line with `\r`; only the last drawing is what a person would see. */
function cleanTerminalOutput(text: string): string {
  return text
    .replace(ANSI_ESCAPE, "")
    .split("\n")
    .map((line) => {
      const trimmed = line.endsWith("\r") ? line.slice(0, -1) : line;
      return trimmed.slice(trimmed.lastIndexOf("\r") + 1);
    })
    .join("\n");
}

const runCommandTool = defineTool({
  name: "run_command",
  description: toolDescription("run_command"),
  schema: z.object({
    command: z.string().min(1).describe("The command line, run with bash -c"),
    cwd: z.string().optional().describe("Folder to run in, relative to the workspace (default: its root)"),
    timeout_ms: z
      .number()
      .int()
      .positive()
      .optional()
      .describe("Stop the command after this many milliseconds (capped by the configured limit)"),
  }),
  permission: "exec",
  kind: "execute",
  async execute({ command, cwd, timeout_ms }, ctx) {
    const dir = resolveInWorkspace(ctx, cwd ?? ".", "read");
    const info = await stat(dir.absolute).catch(() => undefined);
    if (!info?.isDirectory()) throw new ToolError(`cwd ${dir.display} is not an existing folder.`);
    const timeoutMs = Math.min(timeout_ms ?? ctx.commandTimeoutMs, ctx.commandTimeoutMs);
    const output = new HeadTailBuffer();
    const collect = (chunk: Buffer): void => output.push(chunk);
    // stderr joins stdout inside the shell, so the two stay in the order they were written.
    const spawned = confinedCommand(ctx, `exec 2>&1; ${command}`);
    const options = {
      cwd: dir.absolute,
      env: commandEnvironment(ctx),
      timeoutMs,
      signal: ctx.signal,
      graceMs: KILL_GRACE_MS,
      onStdout: collect,
      onStderr: collect,
      ...(spawned.watch ? { supervise: spawned.watch } : {}),
    };
    const terminal = ctx.editor?.terminal;
    const handle = terminal
      ? terminal(
          withExactEnvironment(spawned, options.env),
          options,
          ctx.callId ? { callId: ctx.callId, ...(ctx.agent ? { agent: ctx.agent } : {}) } : undefined,
        )
      : spawnGroup(spawned.file, spawned.args, options);
    const result = await handle.done;
    const cut = output.finish();
    let status: string;
    const stopped = spawned.watch?.stopped(result.exitCode);
    if (stopped) {
      status = stopped;
    } else if (result.timedOut) {
      status = `Timed out after ${timeoutMs} ms; the command and every process it started were stopped.`;
    } else if (result.aborted) {
      status = "Cancelled; the command and every process it started were stopped.";
    } else if (result.signal) {
      status = `Killed by signal ${result.signal} after ${result.durationMs} ms.`;
    } else {
      status = `Exit code ${result.exitCode} after ${result.durationMs} ms.`;
    }
    // A person who let this call read secret files chose to show them; otherwise an environment
    // listing (`env`, a container's settings) keeps its secrets from the model.
    const shown = cleanTerminalOutput(cut.text);
    const text =
      cut.total_bytes === 0
        ? "(no output)"
        : ctx.secrets?.approved.size
          ? shown
          : hideEnvironmentSecrets(shown);
    const offline =
      ctx.sandbox &&
      !ctx.sandbox.network &&
      result.exitCode !== 0 &&
      splitCommandLine(command)?.some(needsNetwork);
    // Otherwise the model reads "could not resolve host" as a broken network and keeps retrying.
    const note = offline
      ? "\nNote: commands run without network access in the sandbox (sandbox.network in the config)."
      : "";
    return {
      text: `${status}\n${text}${note}`,
      data: {
        kind: "command",
        exit_code: result.exitCode,
        signal: result.signal,
        timed_out: result.timedOut,
        cancelled: result.aborted,
        duration_ms: result.durationMs,
        output_bytes: cut.total_bytes,
        output_truncated: cut.truncated,
      },
    };
  },
  describe: ({ command }) => command,
  // What a command changes is not known before it runs: no paths, so it is checkpointed whole.
  touches: ({ command, cwd }) => ({
    writes: "unknown",
    command: { text: command, ...(cwd !== undefined ? { cwd } : {}) },
  }),
});

/**
 * The command run with exactly `env`, whatever environment starts it: an editor's terminal runs
 * what it is given in the editor's own environment, secrets and all, and can only add to it.
 */
function withExactEnvironment(command: WrappedCommand, env: Record<string, string>): WrappedCommand {
  const assignments = Object.entries(env).map(([name, value]) => `${name}=${value}`);
  return {
    file: findExecutable("env") ?? "/usr/bin/env",
    args: ["-i", ...assignments, command.file, ...command.args],
  };
}

/** What the model's commands get of cairn's environment: the session's, or the default policy's. */
export function commandEnvironment(ctx: Pick<ToolContext, "env">): Record<string, string> {
  return ctx.env ?? cleanEnvironment(process.env, environmentPolicy());
}

/**
 * The process to spawn for a shell command under the session's sandbox: every command cairn runs
 * for the model, including the project's checks, goes through it.
 */
export function confinedCommand(ctx: ToolContext, command: string): WrappedCommand {
  const confined = ctx.sandbox;
  return wrapCommand(command, {
    sandbox: confined?.sandbox ?? { kind: "none" },
    workspace: ctx.workspace,
    extraRoots: ctx.extraRoots,
    ...(confined ? { tmpDir: confined.tmpDir(), emptyFile: confined.tmpDir.empty } : {}),
    allowNetwork: confined?.network ?? true,
    readOnly: confined?.readOnly ?? [],
    ...(confined ? { masks: confined.masks(ctx.secrets), limits: confined.limits } : {}),
  });
}

export const commandTools = [runCommandTool];
