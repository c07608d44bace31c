import { readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { makeHome, makeRepo, streamEvents } from "../test/helpers/cli.js";
import type { ScriptedTurn } from "../test/support/scriptedServer.js";
import type { BenchResult, Figure } from "./lib/report.js";
import { fromTurns, serveProcess, spawnTask } from "./lib/session.js";
import { median, nowMs } from "./lib/stats.js";

export interface HugeOptions {
  /** Bytes of the file the model writes: one character repeated (issue 26: 10 MiB). */
  bytes: number;
  runs: number;
}

/** The baseline's write: the same session with an ordinary small file. */
const SMALL_BYTES = 1024;

/** The most resident memory a live process has had, from /proc (Linux); null elsewhere. */
function peakRssMb(pid: number): number | null {
  try {
    const kb = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return kb === undefined ? null : Number(kb) / 1024;
  } catch {
    return null;
  }
}

function writeTurn(bytes: number): ScriptedTurn {
  return { toolCalls: [{ name: "write_file", args: { path: "huge.txt", content: "a".repeat(bytes) } }] };
}

interface Measured {
  /** From spawning cairn to its exit. */
  wallMs: number;
  /** The peak resident memory last seen before the exit. */
  peakMb: number | null;
  /** With `interrupt`: from the Ctrl-C to the exit. */
  ctrlCMs?: number;
  status: unknown;
}

/**
 * One `cairn do` whose model writes `bytes` of one character (its answer cap raised so the whole
 * write goes through, as for a model allowed that much), then answers. With `interrupt`, the model
 * never answers the second request, and Ctrl-C (SIGINT) is sent as soon as the call's `tool.call`
 * event is printed: what follows it (the write, its result, measuring the history, the next
 * request) is the work a huge argument costs.
 */
async function session(bytes: number, interrupt: boolean): Promise<Measured> {
  const [repo, home] = await Promise.all([makeRepo({ "README.md": "# a project\n" }), makeHome()]);
  const config = path.join(home, "bench-config.yaml");
  writeFileSync(config, JSON.stringify({ max_output_tokens: 4_000_000 }));
  let peakMb: number | null = null;
  let interruptedAt: number | undefined;
  let exitedAt = 0;
  let poll: NodeJS.Timeout | undefined;
  try {
    const turns: ScriptedTurn[] = [writeTurn(bytes), interrupt ? { hang: true } : { text: "Wrote it." }];
    const record = await serveProcess(fromTurns(turns), (server) => {
      const child = spawnTask(server, {
        command: "do",
        task: "write the file",
        repo,
        home,
        extraArgs: ["--config", config],
      });
      const pid = child.pid ?? 0;
      poll = setInterval(() => {
        peakMb = peakRssMb(pid) ?? peakMb;
      }, 10);
      let tail = "";
      child.stdout.on("data", (chunk: Buffer) => {
        const seen = tail + chunk.toString();
        tail = seen.slice(-32);
        if (interrupt && interruptedAt === undefined && seen.includes('"type":"tool.call"')) {
          interruptedAt = nowMs();
          child.kill("SIGINT");
        }
      });
      child.on("exit", () => {
        exitedAt = nowMs();
        clearInterval(poll);
      });
      return child;
    });
    const result = streamEvents(record.stdout).find((event) => event.type === "result");
    return {
      wallMs: record.wallMs,
      peakMb,
      ...(interruptedAt !== undefined ? { ctrlCMs: exitedAt - interruptedAt } : {}),
      status: result?.status,
    };
  } finally {
    clearInterval(poll);
    rmSync(repo, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  }
}

/** The session as measured, when it ended as one of `statuses`; its figures would mean nothing otherwise. */
function expect(measured: Measured, ...statuses: string[]): Measured {
  if (!statuses.includes(String(measured.status)))
    throw new Error(`the session ended ${String(measured.status)}, not ${statuses.join(" or ")}`);
  return measured;
}

const medianOf = (values: Array<number | null | undefined>): number | null => {
  const known = values.filter((value): value is number => typeof value === "number");
  return known.length ? median(known) : null;
};

/**
 * A model writing megabytes of one character in one `write_file` (issue 26): the whole session's
 * time and peak memory, and how soon Ctrl-C ends it, beside the same session writing 1 KiB.
 */
export async function benchHuge(options: HugeOptions): Promise<BenchResult> {
  const started = nowMs();
  const huge: Measured[] = [];
  const small: Measured[] = [];
  const hugeStopped: Measured[] = [];
  const smallStopped: Measured[] = [];
  for (let run = 0; run < options.runs; run++) {
    // Finished either way: a change nothing checked ends unverified where cairn do says so.
    small.push(expect(await session(SMALL_BYTES, false), "completed", "unverified"));
    huge.push(expect(await session(options.bytes, false), "completed", "unverified"));
    smallStopped.push(expect(await session(SMALL_BYTES, true), "cancelled"));
    hugeStopped.push(expect(await session(options.bytes, true), "cancelled"));
  }
  const size = `${Math.round(options.bytes / 1024)} KiB`;
  const baseline = (name: string, values: Array<number | null | undefined>) => ({
    name: `the same writing 1 KiB: ${name}`,
    value: medianOf(values),
  });
  const figures: Figure[] = [
    {
      name: `cairn do writing ${size} of one character: start to end`,
      value: medianOf(huge.map((m) => m.wallMs)),
      unit: "ms",
      baseline: baseline(
        "start to end",
        small.map((m) => m.wallMs),
      ),
    },
    {
      name: `the same: peak resident memory`,
      value: medianOf(huge.map((m) => m.peakMb)),
      unit: "MB",
      baseline: baseline(
        "peak memory",
        small.map((m) => m.peakMb),
      ),
    },
    {
      name: `the same: Ctrl-C at its tool.call to exit`,
      value: medianOf(hugeStopped.map((m) => m.ctrlCMs)),
      unit: "ms",
      baseline: baseline(
        "Ctrl-C to exit",
        smallStopped.map((m) => m.ctrlCMs),
      ),
      note: `${options.runs} runs; the slowest ${Math.round(Math.max(...hugeStopped.map((m) => m.ctrlCMs ?? 0)))} ms`,
    },
  ];
  return {
    id: "huge",
    title: "a huge tool-call argument",
    figures,
    details: { bytes: options.bytes, huge, small, huge_stopped: hugeStopped, small_stopped: smallStopped },
    durationMs: nowMs() - started,
  };
}
