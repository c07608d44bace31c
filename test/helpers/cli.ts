import { type ChildProcessByStdio, execFileSync, type StdioOptions, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { detectSandbox } from "../../src/safety/sandbox.js";
import type { ScriptedServer } from "../../test/support/scriptedServer.js";
import { streamLineProblem } from "./protocol.js";
import { tempDir } from "./temp.js";
import { scaled } from "./timeScale.js";

/** The repository root, whether this runs from source (vitest) or compiled into dist/ (the benchmarks). */
function repositoryRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, "package.json"))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

export const CAIRN_BIN = path.join(
  repositoryRoot(path.dirname(fileURLToPath(import.meta.url))),
  "bin",
  "cairn.js",
);

/**
 * The exit of a `cairn do` (or `cairn -p`) that changed files without --verify: `unverified`,
 * reason `unchecked` — the change made, nothing checked it (docs/loop.md). Tests about something
 * else than the ending (how an edit lands, undo, odd folders) expect it and check the files.
 */
export const EXIT_UNCHECKED = 3;

/**
 * Starts the built CLI as a user would, with its own XDG folders under `home` so no real config
 * or store leaks in: for tests that need the process itself (to signal it, or to read it live).
 */
export interface CairnOptions {
  env?: Record<string, string>;
  home: string;
  /**
   * Run as an ordinary user would be, to whom file permissions apply: as root (as in CI), without
   * the capabilities that let root read and search any file.
   */
  unprivileged?: boolean;
  /** The Node that starts bin/cairn.js: the test's own unless given (an older one, for the wrapper). */
  node?: string;
  /** The cairn to start: this checkout's bin/cairn.js unless given (one installed from the package). */
  bin?: string;
  /** In a process group of its own, for a test that must kill whatever it leaves behind. */
  detached?: boolean;
}

export function spawnCairn(
  args: string[],
  options: CairnOptions,
  stdio: StdioOptions = ["ignore", "pipe", "pipe"],
): ChildProcessByStdio<Writable | null, Readable, Readable> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    // The test file's own temp folder and the run's compile cache (test/setup), so that what the
    // CLI leaves behind there is found and named.
    ...(process.env.TMPDIR ? { TMPDIR: process.env.TMPDIR } : {}),
    ...(process.env.NODE_COMPILE_CACHE ? { NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE } : {}),
    HOME: options.home,
    XDG_CONFIG_HOME: path.join(options.home, "config"),
    XDG_DATA_HOME: path.join(options.home, "data"),
    NO_COLOR: "1",
    ...options.env,
  };
  const command = [options.node ?? process.execPath, options.bin ?? CAIRN_BIN, ...args];
  const [file = "", ...rest] =
    options.unprivileged && process.getuid?.() === 0
      ? ["setpriv", "--bounding-set=-dac_override,-dac_read_search", ...command]
      : command;
  return spawn(file, rest, { env, stdio, detached: Boolean(options.detached) }) as ChildProcessByStdio<
    Writable | null,
    Readable,
    Readable
  >;
}

/** A Node older than cairn needs, as machines come with (npm scripts put the bundled Node 22 first on PATH). */
export function olderNode(): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    if (dir.includes("node_modules")) continue;
    const candidate = path.join(dir, "node");
    if (!existsSync(candidate)) continue;
    const version = execFileSync(candidate, ["-p", "process.versions.node"], { encoding: "utf8" }).trim();
    if (Number(version.split(".")[0]) < 22) return candidate;
  }
  return undefined;
}

/**
 * The CLI started as `spawnCairn` starts it, its output gathered as it comes, and its exit: for a
 * test that acts on it while it runs (signals it, waits for its requests).
 */
export function startCairn(args: string[], options: CairnOptions) {
  const child = spawnCairn(args, options);
  const output = { stdout: "", stderr: "" };
  child.stdout.on("data", (chunk) => {
    output.stdout += chunk;
  });
  child.stderr.on("data", (chunk) => {
    output.stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
  return { child, output, exited };
}

/**
 * A length of `sleep`, in seconds, that no other test and no other copy of the suite on the
 * machine uses at the same time (`whole` is the test's own; the fraction is this process's id,
 * padded to the widest, so no length is the start of another): a test that looks for its
 * command among the machine's processes finds its own.
 */
export function ownSleepLength(whole: number): string {
  return `${whole}.${String(process.pid).padStart(7, "0")}`;
}

/** `sleep` of ownSleepLength(seconds), as its arguments. */
export function ownSleep(seconds: number): string[] {
  return ["sleep", ownSleepLength(seconds)];
}

/** Whether a process whose command line holds `words` (in order, whole, as its arguments) is running. */
export function processRunning(words: string[]): boolean {
  const wanted = `${words.join("\0")}\0`;
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(wanted)) return true;
    } catch {
      // It ended while we looked.
    }
  }
  return false;
}

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI as a user would, with its own XDG folders so no real config leaks in. */
export async function runCairn(
  args: string[],
  options: CairnOptions & { timeoutMs?: number; input?: string },
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawnCairn(args, options, ["pipe", "pipe", "pipe"]);
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    // A run that hangs is killed, so that the test fails on what it printed.
    const timer = setTimeout(() => child.kill("SIGKILL"), scaled(options.timeoutMs ?? 25_000));
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin?.end(options.input ?? "");
  });
}

/** A folder with the given files, resolved through symlinks (macOS /tmp, CI tmpfs). */
export async function makeRepo(files: Record<string, string>): Promise<string> {
  const dir = tempDir("cairn-repo-");
  for (const [file, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
    await writeFile(path.join(dir, file), content);
  }
  return dir;
}

/** Who the tests' commits are by, given to git on the command line so no config is needed. */
export const GIT_IDENTITY = [
  "-c",
  "user.name=cairn test",
  "-c",
  "user.email=test@cairn.invalid",
  "-c",
  "commit.gpgsign=false",
];

/** A folder with the given files, committed to a new git repository. */
export async function makeGitRepo(files: Record<string, string>): Promise<string> {
  const dir = await makeRepo(files);
  const git = (...args: string[]) => execFileSync("git", args, { cwd: dir, stdio: "ignore" });
  git("init", "-q", "-b", "main");
  git("add", "-A");
  git(...GIT_IDENTITY, "commit", "-qm", "first");
  return dir;
}

/**
 * A home of its own for one CLI run. Where bubblewrap cannot run (a container without user
 * namespaces), commands are allowed unsandboxed so the tests of everything else still run; the
 * sandbox's own tests say they were skipped and why.
 */
export async function makeHome(): Promise<string> {
  const home = tempDir("cairn-home-");
  if (detectSandbox().kind === "none") {
    await mkdir(path.join(home, "config", "cairn"), { recursive: true });
    await writeFile(
      path.join(home, "config", "cairn", "config.yaml"),
      "sandbox:\n  allow_unsandboxed: true\n",
    );
  }
  return home;
}

export type Format = "openai" | "anthropic" | "ollama";

/** Flags and environment that point cairn at the scripted server in one wire format. */
export function modelFlags(
  format: Format,
  server: ScriptedServer,
): { args: string[]; env: Record<string, string> } {
  switch (format) {
    case "openai":
      return {
        args: ["--model", "openai/gpt-4o", "--base-url", server.openaiBaseUrl],
        env: { OPENAI_API_KEY: "sk-test" },
      };
    case "anthropic":
      return {
        args: ["--model", "anthropic/claude-sonnet-4-5", "--base-url", server.anthropicBaseUrl],
        env: { ANTHROPIC_API_KEY: "sk-ant-test" },
      };
    case "ollama":
      return { args: ["--model", "ollama/qwen2.5-coder:7b", "--base-url", server.ollamaBaseUrl], env: {} };
  }
}

export interface DoOptions {
  repo: string;
  task: string;
  /** `run` for the whole loop; `do` by default. */
  command?: "do" | "run";
  format?: Format;
  /** Flags after the defaults. */
  extra?: string[];
  /** `json` or `stream-json` (the default). */
  output?: "json" | "stream-json";
}

/**
 * The command line and environment of `cairn do` (or `cairn run`) as most end-to-end tests run
 * it: unattended (`--approval auto`) in `repo`, against the scripted server, printing its events.
 */
export function doCommand(server: ScriptedServer, options: DoOptions) {
  const { args, env } = modelFlags(options.format ?? "openai", server);
  const command = [
    options.command ?? "do",
    options.task,
    ...args,
    "--cwd",
    options.repo,
    "--approval",
    "auto",
  ];
  command.push("--output-format", options.output ?? "stream-json", ...(options.extra ?? []));
  return { args: command, env };
}

/** `cairn do` as `doCommand` puts it: the run, the events, the result line and what was sent. */
export async function doSession(
  server: ScriptedServer,
  options: DoOptions & { home?: string; timeoutMs?: number },
) {
  const { args, env } = doCommand(server, options);
  const run = await runCairn(args, {
    home: options.home ?? (await makeHome()),
    env,
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
  });
  const events = streamEvents(run.stdout);
  const result = events.find((e) => e.type === "result") as Record<string, unknown> | undefined;
  return { run, events, result, requests: server.requests };
}

/** JSON lines as they are: `cairn batch`'s own events. */
export function jsonLines(stdout: string): Array<Record<string, unknown> & { type: string }> {
  return stdout
    .split("\n")
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line));
}

/**
 * Parses a session's `--output-format stream-json` output into its events, each checked against
 * the protocol's schema: a line that does not fit it fails the test that printed it.
 */
export function streamEvents(stdout: string): Array<Record<string, unknown> & { type: string }> {
  const events = jsonLines(stdout);
  for (const event of events) {
    const problem = streamLineProblem(event);
    if (problem)
      throw new Error(`a stream-json line does not fit the protocol: ${problem}\n${JSON.stringify(event)}`);
  }
  return events;
}
