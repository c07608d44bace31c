import { statSync } from "node:fs";
import path from "node:path";
import { type Command, InvalidArgumentError, Option } from "commander";

export interface CommonOptions {
  model?: string;
  baseUrl?: string;
  cwd?: string;
  config?: string;
  approval?: string;
  maxIterations?: number;
  maxCost?: number;
  maxTokens?: number;
  timeout?: number;
  verify?: string;
  allowUnsandboxed?: boolean;
  trustWorkspace?: boolean;
  outputFormat: "text" | "json" | "stream-json";
  color: boolean;
  verbose?: boolean;
  debugLog?: string;
}

export function positiveInteger(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError("expected a whole number above 0.");
  return n;
}

export function positiveNumber(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError("expected a number above 0.");
  return n;
}

/**
 * A folder flag (`--cwd`) is checked as it is parsed, so a folder that isn't there is bad usage
 * said in one line, like any other bad flag, before anything else runs.
 */
export function existingFolder(value: string): string {
  let isFolder: boolean;
  try {
    isFolder = statSync(value).isDirectory();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") throw new InvalidArgumentError("the folder does not exist.");
    throw new InvalidArgumentError(`the folder cannot be opened (${code ?? (error as Error).message}).`);
  }
  if (!isFolder) throw new InvalidArgumentError("it is a file, not a folder.");
  return value;
}

/**
 * A folder flag cairn writes into (`--out`): one that is there must be a folder, and one that is
 * not must be possible to make, so a results folder that cannot exist is bad usage said at once,
 * not a failure after the first task ran.
 */
export function folderToMake(value: string): string {
  for (let dir = path.resolve(value); ; dir = path.dirname(dir)) {
    let isFolder: boolean;
    try {
      isFolder = statSync(dir).isDirectory();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if ((code === "ENOENT" || code === "ENOTDIR") && path.dirname(dir) !== dir) continue;
      throw new InvalidArgumentError(`the folder cannot be made (${code ?? (error as Error).message}).`);
    }
    if (isFolder) return value;
    throw new InvalidArgumentError(
      dir === path.resolve(value)
        ? "it is a file, not a folder."
        : `the folder cannot be made: ${dir} is a file.`,
    );
  }
}

/**
 * A file flag cairn appends to (`--debug-log`): its folder must be there, as a shell's `>>` wants
 * it. A folder that is not there is most often a mistyped path, which cairn should not make a
 * tree of folders for without a word; one that is a file, or the path itself a folder, is said too.
 */
export function fileToAppend(value: string): string {
  const file = path.resolve(value);
  const folder = path.dirname(file);
  let isFolder: boolean;
  try {
    isFolder = statSync(folder).isDirectory();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR")
      throw new InvalidArgumentError(
        `its folder ${folder} does not exist (make it first, or name a file in a folder that does).`,
      );
    throw new InvalidArgumentError(`its folder cannot be opened (${code ?? (error as Error).message}).`);
  }
  if (!isFolder) throw new InvalidArgumentError(`${folder} is a file, not a folder.`);
  if (statSync(file, { throwIfNoEntry: false })?.isDirectory())
    throw new InvalidArgumentError("it is a folder; name a file in it.");
  return value;
}

/** `--cwd`, the same on every command: a folder that is there (see existingFolder). */
export const cwdOption = (description = "workspace folder (default: the current folder)") =>
  new Option("--cwd <dir>", description).argParser(existingFolder);

/** `--agent`, on `cairn do` and `cairn run`: who carries the execution out. */
export const agentOption = () =>
  new Option(
    "--agent <target>",
    "carry out the execution through another agent: a named agent, agent:codex, agent:claude-code, agent:gemini, agent:opencode, agent:ollama or llm:<profile>",
  );

/**
 * `--batch-workspace <original>`, hidden: a batch runs each task's cairn in a throwaway copy
 * (`--cwd`) and says with it which repository that copy is of, so the session is stored and
 * reported under the repository rather than under a folder that is about to be deleted.
 */
export function batchWorkspaceOption(): Option {
  return new Option("--batch-workspace <original>", "for cairn batch only").hideHelp();
}

/** The flags every task command shares (DESIGN.md "Command line"). */
export function addCommonOptions(command: Command): Command {
  return command
    .option(
      "--model <provider/model>",
      "model to use, e.g. anthropic/claude-sonnet-4-5 or ollama/qwen2.5-coder",
    )
    .option("--base-url <url>", "endpoint for the model's provider (vLLM, LM Studio, llama.cpp, a proxy)")
    .addOption(cwdOption())
    .option("--config <file>", "extra config file, applied over the global and project ones")
    .addOption(
      new Option("--approval <mode>", "what may run without asking").choices([
        "ask",
        "auto-edit",
        "auto",
        "read-only",
      ]),
    )
    .option("--max-iterations <n>", "iteration cap", positiveInteger)
    .option("--max-cost <usd>", "stop when the session has cost this many dollars", positiveNumber)
    .option(
      "--max-tokens <n>",
      "stop when the session has used this many tokens (input + output)",
      positiveInteger,
    )
    .option("--timeout <seconds>", "stop when the session has run this long", positiveNumber)
    .option("--verify <command>", 'command that checks the work (e.g. "npm test")')
    .option(
      "--allow-unsandboxed",
      "where no sandbox works (no bubblewrap), let --approval auto run commands unconfined, on purpose",
    )
    .option(
      "--trust-workspace",
      "for this run, apply what the workspace's own files (.cairn/config.yaml and its hooks, .mcp.json, agents, commands, skills) ask for beyond your settings",
    )
    .addOption(
      new Option("--output-format <format>", "text for people; json or stream-json for scripts")
        .choices(["text", "json", "stream-json"])
        .default("text"),
    )
    .option("--no-color", "plain text without colours (also: NO_COLOR)")
    .option(
      "--verbose",
      "more detail in the text output: each model call's tokens, tool output, status changes, reasoning",
    )
    .option(
      "--debug-log <file>",
      "append every event and a summary of each model request and response to this file, in a folder that exists (secrets redacted)",
      fileToAppend,
    );
}
