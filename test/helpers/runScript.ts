import type { RunResult } from "../../src/events/types.js";
import { type RecordedRequest, type ScriptedTurn, startScriptedServer } from "../support/scriptedServer.js";
import { doSession } from "./cli.js";

/** What each kind of request of `cairn run` gets, in order. */
export interface RunScriptParts {
  classification?: object[];
  intent?: object[];
  plan?: object[];
  review?: object[];
  /** The command the model proposes as a check, where the project has none. */
  check?: object[];
  /** Judgements of progress between rounds, where counting cannot tell. */
  progress?: object[];
  /** Everything that is not a structured request: the tool loop's turns. */
  execution?: ScriptedTurn[];
  /** Usage reported for each structured answer (the server derives one from sizes otherwise). */
  structuredUsage?: ScriptedTurn["usage"];
}

export type StructuredName = "classification" | "intent" | "plan" | "review" | "check" | "progress";

/** The structured output a request asks for (response_format on OpenAI-style endpoints), if any. */
export function structuredName(request: RecordedRequest): StructuredName | undefined {
  return request.body?.response_format?.json_schema?.name;
}

/**
 * A script for `cairn run` that answers each request by what it asks for, so a test states the
 * plan, the reviews and the tool turns separately instead of interleaving them by hand.
 */
export function runScript(parts: RunScriptParts): (request: RecordedRequest) => ScriptedTurn {
  const queues = {
    classification: [...(parts.classification ?? [])],
    intent: [...(parts.intent ?? [])],
    plan: [...(parts.plan ?? [])],
    review: [...(parts.review ?? [])],
    check: [...(parts.check ?? [])],
    progress: [...(parts.progress ?? [])],
  };
  const execution = [...(parts.execution ?? [])];
  return (request) => {
    const name = structuredName(request);
    if (name) {
      const next = queues[name].shift();
      if (!next) return { error: { status: 500, body: { error: `script: no ${name} left` } } };
      return {
        text: JSON.stringify(next),
        ...(parts.structuredUsage ? { usage: parts.structuredUsage } : {}),
      };
    }
    return execution.shift() ?? { error: { status: 500, body: { error: "script: no execution turn left" } } };
  };
}

export const classify = (complexity = "simple", category = "fix") => ({
  category,
  complexity,
  needs_tools: true,
  confidence: 0.8,
});

export const intent = (files: string[]) => ({
  category: "fix",
  complexity: "simple",
  estimated_files: files,
  requires_context: false,
  summary: "Fix the bug.",
});

export const onePlan = (title: string, files: string[]) => ({
  summary: title,
  steps: [{ id: "1", title, category: "modify", files, done_when: "the checks pass" }],
});

export const ready = { ready: true, quality: 9, issues: [], suggestions: [] };
export const notReady = (description: string) => ({
  ready: false,
  quality: 3,
  issues: [{ severity: "major", file: "", description }],
  suggestions: [],
});

/** A JavaScript project whose one test fails: sum() subtracts. */
export const JS_REPO = {
  "package.json": JSON.stringify({ name: "fixture", type: "module", scripts: { test: "node --test" } }),
  "src/sum.js": "export function sum(values) {\n  return values.reduce((a, b) => a - b, 0);\n}\n",
  "test/sum.test.js":
    'import assert from "node:assert/strict";\nimport { test } from "node:test";\nimport { sum } from "../src/sum.js";\n\ntest("sum adds", () => {\n  assert.equal(sum([1, 2, 3]), 6);\n});\n',
};

/** The edit that fixes JS_REPO. */
export const FIX_SUM = {
  name: "edit_file",
  args: { path: "src/sum.js", old_string: "(a, b) => a - b", new_string: "(a, b) => a + b" },
};

/** The parts of a `cairn run` that fixes JS_REPO in one step and passes its review. */
export const FIX_SUM_RUN: RunScriptParts = {
  classification: [classify()],
  intent: [intent(["src/sum.js"])],
  plan: [onePlan("Fix the reducer in sum", ["src/sum.js"])],
  execution: [{ toolCalls: [FIX_SUM] }, { text: "Changed the reducer to add." }],
  review: [ready],
};

/**
 * `cairn run` of `task` in `repo` against a scripted server playing `parts`, closed once the run
 * has ended (its requests stay readable in what this returns).
 */
export async function cairnRun(
  repo: string,
  task: string,
  parts: RunScriptParts,
  extra: string[] = [],
  timeoutMs = 60_000,
) {
  const server = await startScriptedServer(runScript(parts));
  try {
    const session = await doSession(server, { command: "run", repo, task, extra, timeoutMs });
    return { ...session, result: session.result as unknown as RunResult | undefined };
  } finally {
    await server.close();
  }
}
