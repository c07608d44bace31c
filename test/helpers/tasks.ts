import { readFile } from "node:fs/promises";
import path from "node:path";
import type { TaskRecord } from "../../src/batch/record.js";
import type { EvalReport } from "../../src/eval/report.js";
import type { RecordedRequest, Script, ScriptedServer, ScriptedTurn } from "../support/scriptedServer.js";
import { modelFlags, runCairn } from "./cli.js";

/** How many tool results the request carries: 0 on a task's first model call, 1 after one tool call… */
export function toolResultsIn(request: RecordedRequest): number {
  return (request.rawBody.match(/"role":"tool"|"type":"function_call_output"/g) ?? []).length;
}

/**
 * One scripted server for many tasks running at once: each request is answered by the plan of the
 * task whose marker (a word in its task text, e.g. `[t1]`) the request holds, at the turn the
 * request is at. Stateless, so a task tried twice gets the same answers.
 */
export function byTask(
  plans: Record<string, (turn: number, request: RecordedRequest) => ScriptedTurn>,
): Script {
  return (request) => {
    const marker = Object.keys(plans).find((m) => request.rawBody.includes(m));
    if (!marker) return { error: { status: 500, body: { error: "script: no task marker in the request" } } };
    return plans[marker]!(toolResultsIn(request), request);
  };
}

/** A task that writes one file, then says it is done. */
export function writes(path: string, content: string): (turn: number) => ScriptedTurn {
  return (turn) =>
    turn === 0
      ? { toolCalls: [{ name: "write_file", args: { path, content } }], usage: { input: 1000, output: 50 } }
      : { text: `Wrote ${path}.`, usage: { input: 1100, output: 10 } };
}

/** A task the model answers without doing anything. */
export function declines(turn: number): ScriptedTurn {
  return { text: turn === 0 ? "I cannot do that." : "Done.", usage: { input: 900, output: 10 } };
}

/** The records of a batch's results folder. */
export async function readResults(out: string): Promise<TaskRecord[]> {
  const text = await readFile(path.join(out, "results.jsonl"), "utf8");
  return text
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as TaskRecord);
}

/**
 * `cairn eval <suite> --mode do --out <out> --output-format json` against the scripted server,
 * checked to have run, and the report it printed.
 */
export async function runEval(
  suite: string,
  out: string,
  options: {
    home: string;
    server: ScriptedServer;
    extra?: string[];
    timeoutMs?: number;
    env?: Record<string, string>;
  },
): Promise<EvalReport> {
  const { args, env: modelEnv } = modelFlags("openai", options.server);
  const env = { ...modelEnv, ...options.env };
  const run = await runCairn(
    [
      "eval",
      suite,
      "--mode",
      "do",
      "--out",
      out,
      "--output-format",
      "json",
      ...args,
      ...(options.extra ?? []),
    ],
    { home: options.home, env, timeoutMs: options.timeoutMs ?? 150_000 },
  );
  if (run.code !== 0) throw new Error(`cairn eval exited with ${run.code}: ${run.stderr}`);
  return JSON.parse(run.stdout) as EvalReport;
}
