import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { ScriptedTurn } from "../test/support/scriptedServer.js";
import { ROOT } from "./lib/paths.js";
import type { BenchResult } from "./lib/report.js";
import { finished, fromTurns, type RequestTiming, runSession, serveProcess } from "./lib/session.js";
import { median, nowMs, quantile } from "./lib/stats.js";

export interface OverheadOptions {
  turns: number;
}

const MODULES = 8;

function moduleSource(k: number): string {
  const lines = [`// Module ${k} of the overhead workspace.`, "export const counter = 0;", ""];
  for (let i = 0; i < 12; i++) {
    lines.push(
      `export function step${k}_${i}(value: number): number {`,
      `  return value * ${i + 2} + ${k};`,
      "}",
    );
  }
  return `${lines.join("\n")}\n`;
}

/**
 * A session of cheap in-process tools in rotation (read, edit, list, TODO list), so each turn
 * measures what cairn itself does with a reply, not what a tool waits for.
 */
function overheadScript(turns: number): ScriptedTurn[] {
  const counters = new Array<number>(MODULES).fill(0);
  const script: ScriptedTurn[] = [];
  for (let t = 0; t < turns - 1; t++) {
    const k = t % MODULES;
    const file = `src/module${k}.ts`;
    const kind = t % 4;
    let call: { name: string; args: unknown };
    if (kind === 0) {
      call = { name: "read_file", args: { path: file } };
    } else if (kind === 1) {
      const old_string = `export const counter = ${counters[k]};`;
      counters[k]! += 1;
      call = {
        name: "edit_file",
        args: { path: file, old_string, new_string: `export const counter = ${counters[k]};` },
      };
    } else if (kind === 2) {
      call = { name: "list_files", args: { path: "src" } };
    } else {
      call = {
        name: "todo_write",
        args: { todos: [{ id: "1", content: `Bump the counters (turn ${t})`, status: "in_progress" }] },
      };
    }
    script.push({ ...(t === 0 ? { text: "Plan: bump every module's counter." } : {}), toolCalls: [call] });
  }
  script.push({ text: "Bumped the counters." });
  return script;
}

interface TurnFigures {
  /** Per turn: from the server's answer being written to the next request arriving. */
  turnMs: number[];
  cpuPerTurnMs: number | null;
  rssEndMb: number | null;
}

function turnFigures(timings: readonly RequestTiming[]): TurnFigures {
  const turnMs = timings.slice(1).map((timing, i) => timing.arrivedMs - timings[i]!.answeredMs);
  const first = timings[0];
  const last = timings.at(-1);
  const cpu = first?.cpuMs != null && last?.cpuMs != null ? last.cpuMs - first.cpuMs : null;
  return {
    turnMs,
    cpuPerTurnMs: cpu === null || turnMs.length === 0 ? null : cpu / turnMs.length,
    rssEndMb: last?.rssMb ?? null,
  };
}

/**
 * The same requests made again by a client of their own against the same answers: `wire` posts
 * the very bodies with bare fetch, `sdk` makes the calls through the provider cairn uses.
 */
async function replayFloor(
  client: "wire" | "sdk",
  bodies: string[],
  script: ScriptedTurn[],
): Promise<TurnFigures> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "cairn-bench-wire-"));
  try {
    const file = path.join(dir, "bodies.json");
    writeFileSync(file, JSON.stringify(bodies));
    const probe = path.join(ROOT, "bench", "probes", `${client}-client.mjs`);
    const record = await serveProcess(fromTurns(script), (server) =>
      spawn(
        process.execPath,
        [probe, client === "wire" ? `${server.openaiBaseUrl}/chat/completions` : server.openaiBaseUrl, file],
        { stdio: ["ignore", "pipe", "pipe"] },
      ),
    );
    if (record.code !== 0) throw new Error(`the ${client} client failed: ${record.stderr}`);
    return turnFigures(record.timings);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Harness overhead per turn of a long `cairn do` session with a model that answers at once.
 * Each turn is timed from the moment the server has written its answer to the moment the next
 * request arrives, so the server's own work is left out; cairn's CPU is read from /proc.
 */
export async function benchOverhead(options: OverheadOptions): Promise<BenchResult> {
  const started = nowMs();
  const script = overheadScript(options.turns);
  const files = Object.fromEntries(
    Array.from({ length: MODULES }, (_, k) => [`src/module${k}.ts`, moduleSource(k)]),
  );
  const session = await runSession({
    command: "do",
    task: "bump the counter in every module",
    script: fromTurns(script),
    files,
    config: { max_tool_calls: options.turns },
    countGit: true,
  });
  finished(session);
  if (session.requests.length !== options.turns) {
    throw new Error(`expected ${options.turns} model requests, cairn made ${session.requests.length}`);
  }
  const cairn = turnFigures(session.timings);
  const bodies = session.requests.map((request) => request.rawBody);
  const floor = await replayFloor("wire", bodies, script);
  const sdk = await replayFloor("sdk", bodies, script);
  // The gap after request i is spent on the tool that request's answer called.
  const byTool: Record<string, number[]> = {};
  cairn.turnMs.forEach((ms, i) => {
    const tool = script[i]?.toolCalls?.[0]?.name ?? "answer";
    byTool[tool] = [...(byTool[tool] ?? []), ms];
  });
  const baseline = (value: number | null) => ({ name: "bare fetch client", value });
  const edits = byTool.edit_file ?? [];
  const others = Object.entries(byTool).flatMap(([tool, ms]) => (tool === "edit_file" ? [] : ms));
  const gitProcesses = session.gitProcesses ?? [];
  return {
    id: "overhead",
    title: "2. harness overhead per turn",
    figures: [
      {
        name: `wall time in cairn per turn, median of ${cairn.turnMs.length}`,
        value: median(cairn.turnMs),
        unit: "ms",
        baseline: baseline(median(floor.turnMs)),
        target: { on: "value", op: "<=", limit: 5 },
      },
      {
        name: `non-edit turns (read, list, TODO), median of ${others.length}`,
        value: median(others),
        unit: "ms",
        baseline: baseline(median(floor.turnMs)),
        target: { on: "value", op: "<=", limit: 3 },
      },
      {
        name: `edit turns with their checkpoint, median of ${edits.length}`,
        value: median(edits),
        unit: "ms",
        baseline: baseline(median(floor.turnMs)),
        target: { on: "value", op: "<=", limit: 10 },
      },
      {
        name: "CPU time in cairn per turn, mean",
        value: cairn.cpuPerTurnMs,
        unit: "ms",
        baseline: baseline(floor.cpuPerTurnMs),
        ...(cairn.cpuPerTurnMs === null ? { note: "no /proc here" } : {}),
      },
      {
        name: "the same calls through the AI SDK provider alone, per turn, median",
        value: median(sdk.turnMs),
        unit: "ms",
        baseline: baseline(median(floor.turnMs)),
      },
      {
        name: "the AI SDK provider alone: CPU per turn, mean",
        value: sdk.cpuPerTurnMs,
        unit: "ms",
        baseline: baseline(floor.cpuPerTurnMs),
      },
      {
        name: "cairn's own part of a non-edit turn (its median less the provider's)",
        value: median(others) - median(sdk.turnMs),
        unit: "ms",
      },
      {
        name: `git processes started in the session (${edits.length} edits)`,
        value: gitProcesses.length,
        unit: "count",
      },
      {
        name: "events stored per turn (one transaction each)",
        value: session.events.length / options.turns,
        unit: "count",
      },
      {
        name: "RSS at the end",
        value: cairn.rssEndMb,
        unit: "MB",
        baseline: baseline(floor.rssEndMb),
        target: { on: "value", op: "<=", limit: 200 },
      },
    ],
    details: {
      turns: options.turns,
      turn_ms: {
        median: median(cairn.turnMs),
        p90: quantile(cairn.turnMs, 0.9),
        max: Math.max(...cairn.turnMs),
        first_10: cairn.turnMs.slice(0, 10),
        last_10: cairn.turnMs.slice(-10),
      },
      git_processes: Object.fromEntries(
        [...new Set(gitProcesses)].map((sub) => [sub, gitProcesses.filter((g) => g === sub).length]),
      ),
      events_per_turn: session.events.length / options.turns,
      median_turn_ms_by_tool: Object.fromEntries(
        Object.entries(byTool).map(([tool, ms]) => [tool, median(ms)]),
      ),
      floor_turn_ms: { median: median(floor.turnMs), p90: quantile(floor.turnMs, 0.9) },
      sdk_turn_ms: { median: median(sdk.turnMs), p90: quantile(sdk.turnMs, 0.9) },
      cpu_per_turn_ms: { cairn: cairn.cpuPerTurnMs, sdk: sdk.cpuPerTurnMs, floor: floor.cpuPerTurnMs },
      rss_end_mb: { cairn: cairn.rssEndMb, floor: floor.rssEndMb },
      session_wall_ms: session.wallMs,
      last_request_bytes: session.requests.at(-1)?.rawBody.length,
    },
    durationMs: nowMs() - started,
  };
}
