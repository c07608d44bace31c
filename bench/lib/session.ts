import { type ChildProcessByStdio, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Readable, Writable } from "node:stream";
import {
  type Format,
  makeHome,
  makeRepo,
  modelFlags,
  spawnCairn,
  streamEvents,
} from "../../test/helpers/cli.js";
import {
  type RecordedRequest,
  type ScriptedServer,
  type ScriptedTurn,
  startScriptedServer,
} from "../../test/support/scriptedServer.js";
import { nowMs } from "./stats.js";

/** Set by `npm run bench -- --cpu-prof DIR`: the folder where each cairn session writes a CPU profile. */
export const CPU_PROFILE_DIR = "CAIRN_BENCH_CPU_PROF";

export type Script = (request: RecordedRequest, index: number) => ScriptedTurn;

export interface SessionSpec {
  command: "do" | "run";
  task: string;
  /** The model's side, one turn per request. */
  script: Script;
  /** The workspace's files. */
  files: Record<string, string>;
  /** cairn configuration, passed with --config; a function of the workspace for settings that name it. */
  config?: Record<string, unknown> | ((workspace: string) => Record<string, unknown>);
  timeoutMs?: number;
  /** Count the git processes cairn starts (through a `git` on its PATH that notes each one). */
  countGit?: boolean;
  /** The wire format the scripted server speaks; OpenAI chat completions unless given. */
  format?: Format;
}

export interface RequestTiming {
  /** When the request had arrived at the server, in `nowMs()` time. */
  arrivedMs: number;
  /** When the server had written its whole answer. */
  answeredMs: number;
  /** CPU time (user + system) cairn's process had used when the request arrived; null without /proc. */
  cpuMs: number | null;
  /** cairn's resident set size when the request arrived; null without /proc. */
  rssMb: number | null;
}

export type StreamEvent = Record<string, unknown> & { type: string };

let clockTicks: number | undefined;

/** Linux reports process CPU time in clock ticks; almost always 100 a second. */
function ticksPerSecond(): number {
  clockTicks ??= Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout) || 100;
  return clockTicks;
}

/** User plus system CPU time of a live process, from /proc (Linux); null elsewhere. */
export function processCpuMs(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name in parentheses may hold spaces: fields are counted after it.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond();
  } catch {
    return null;
  }
}

export function processRssMb(pid: number): number | null {
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return kb === undefined ? null : Number(kb) / 1024;
  } catch {
    return null;
  }
}

export interface ProcessRecord {
  code: number | null;
  stdout: string;
  stderr: string;
  requests: RecordedRequest[];
  timings: RequestTiming[];
  /** From spawning the client to its exit. */
  wallMs: number;
}

export interface SessionRecord extends ProcessRecord {
  events: StreamEvent[];
  /** The git processes cairn started, by subcommand, when the spec asked to count them. */
  gitProcesses?: string[];
}

/** The real git on this PATH, for the counting stand-in to run. */
function realGit(): string {
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    const candidate = path.join(dir, "git");
    if (dir && existsSync(candidate)) return candidate;
  }
  throw new Error("git is not on the PATH");
}

/** A folder with a `git` that writes its subcommand to `log`, then runs the real one. */
function gitCounter(home: string, log: string): string {
  const dir = path.join(home, "git-counter");
  mkdirSync(dir);
  const script = path.join(dir, "git");
  // The subcommand is the first argument that is not an option (cairn puts -c and --git-dir first).
  writeFileSync(
    script,
    `#!/bin/sh\nfor a in "$@"; do case "$a" in -c) ;; -*) ;; *=*) ;; *) echo "$a" >> '${log}'; break;; esac; done\nexec '${realGit()}' "$@"\n`,
  );
  chmodSync(script, 0o755);
  return dir;
}

/**
 * Serves `script` with the scripted server (no latency) to the process `start` spawns, and
 * records every request with when it came and what the client process had spent by then.
 */
export async function serveProcess(
  script: Script,
  start: (server: ScriptedServer) => ChildProcessByStdio<Writable | null, Readable, Readable>,
  timeoutMs = 180_000,
): Promise<ProcessRecord> {
  const timings: RequestTiming[] = [];
  let pid: number | undefined;
  const server = await startScriptedServer((request, index) => {
    const timing: RequestTiming = {
      arrivedMs: nowMs(),
      answeredMs: Number.NaN,
      cpuMs: pid === undefined ? null : processCpuMs(pid),
      rssMb: pid === undefined ? null : processRssMb(pid),
    };
    timings.push(timing);
    // The server writes its answer synchronously after this returns; the next turn of the event
    // loop sees it written.
    setImmediate(() => {
      timing.answeredMs = nowMs();
    });
    return script(request, index);
  });
  try {
    const started = nowMs();
    const child = start(server);
    pid = child.pid;
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    const code = await new Promise<number | null>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill("SIGKILL");
        reject(new Error(`${child.spawnfile} did not finish in ${timeoutMs} ms:\n${stderr}`));
      }, timeoutMs);
      child.on("error", reject);
      child.on("close", (exitCode) => {
        clearTimeout(timer);
        resolve(exitCode);
      });
    });
    return { code, stdout, stderr, requests: server.requests, timings, wallMs: nowMs() - started };
  } finally {
    await server.close();
  }
}

/**
 * `cairn <command> <task>` in `repo` against the scripted server (OpenAI chat completions unless
 * `format` says otherwise), unattended, printing its events as `--output-format stream-json`
 * does; profiled under `--cpu-prof`.
 */
export function spawnTask(
  server: ScriptedServer,
  spec: {
    command: string;
    task: string;
    repo: string;
    home: string;
    extraArgs?: string[];
    env?: Record<string, string>;
    format?: Format;
  },
): ChildProcessByStdio<Writable | null, Readable, Readable> {
  const { args, env } = modelFlags(spec.format ?? "openai", server);
  const profileDir = process.env[CPU_PROFILE_DIR];
  // Sampled every 100 µs: a turn takes a few milliseconds.
  const profile: Record<string, string> = profileDir
    ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-interval=100 --cpu-prof-dir=${profileDir}` }
    : {};
  return spawnCairn(
    [
      spec.command,
      spec.task,
      ...args,
      ...(spec.extraArgs ?? []),
      "--cwd",
      spec.repo,
      "--approval",
      "auto",
      "--output-format",
      "stream-json",
    ],
    { home: spec.home, env: { ...env, ...profile, ...spec.env } },
  );
}

/**
 * Runs the built CLI on a fresh workspace against the scripted server (OpenAI chat completions
 * unless `format` says otherwise), as a user would with `--output-format stream-json`.
 */
export async function runSession(spec: SessionSpec): Promise<SessionRecord> {
  const repo = await makeRepo(spec.files);
  const home = await makeHome();
  try {
    const configArgs: string[] = [];
    if (spec.config) {
      const file = path.join(home, "bench-config.yaml");
      const config = typeof spec.config === "function" ? spec.config(repo) : spec.config;
      writeFileSync(file, JSON.stringify(config));
      configArgs.push("--config", file);
    }
    const gitLog = path.join(home, "git-processes.log");
    const counter = spec.countGit ? gitCounter(home, gitLog) : undefined;
    const record = await serveProcess(
      spec.script,
      (server) => {
        const env: Record<string, string> = {};
        if (counter) env.PATH = `${counter}${path.delimiter}${process.env.PATH ?? ""}`;
        return spawnTask(server, { ...spec, repo, home, extraArgs: configArgs, env });
      },
      spec.timeoutMs,
    );
    const gitProcesses = counter
      ? existsSync(gitLog)
        ? readFileSync(gitLog, "utf8").split("\n").filter(Boolean)
        : []
      : undefined;
    return { ...record, events: streamEvents(record.stdout), ...(gitProcesses ? { gitProcesses } : {}) };
  } finally {
    rmSync(repo, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  }
}

/**
 * Throws with cairn's stderr when the session did not run to its end: its figures would mean
 * nothing. A `cairn do` given no check ends `unverified` (exit 3) once its change is made: that
 * is its end, and what a user's run without --verify measures too.
 */
export function finished(record: SessionRecord): void {
  const result = record.events.find((event) => event.type === "result");
  const done =
    (record.code === 0 && result?.status === "completed") ||
    (record.code === 3 && result?.status === "unverified" && result.reason === "unchecked");
  if (!done) {
    throw new Error(
      `cairn exited with ${record.code} (${String(result?.status ?? "no result")}): ${String(result?.summary ?? "")}\n${record.stderr}`,
    );
  }
}

/** A fixed list of turns as a script; a request past its end gets an error, so cairn fails loudly. */
export function fromTurns(turns: readonly ScriptedTurn[]): Script {
  return (_request, index) =>
    turns[index] ?? {
      error: { status: 500, body: { error: `bench script has only ${turns.length} turns` } },
    };
}

/**
 * Requests with the tool loop's system prompt (the first request's) take `main` in order; any
 * other, such as compaction's summariser, is answered by `side`, so one fixed task runs the same
 * with or without calls cairn adds on its own.
 */
export function withSideCalls(
  main: readonly ScriptedTurn[],
  side: (request: RecordedRequest) => ScriptedTurn,
): Script {
  let system: string | undefined;
  let next = 0;
  const turns = fromTurns(main);
  return (request) => {
    const first = request.body?.messages?.[0];
    const prompt = first?.role === "system" ? String(first.content) : "";
    system ??= prompt;
    return prompt === system ? turns(request, next++) : side(request);
  };
}
