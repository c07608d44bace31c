import { readdir } from "node:fs/promises";
import { z } from "zod";
import type { CheckResult } from "../verify/check.js";
import { parseFailures } from "../verify/failures.js";
import type { Check } from "../verify/plan.js";
import { executeToolCall, prepareToolCall } from "./dispatch.js";
import { askStructured, phaseInstructions } from "./structured.js";
import { Turn } from "./turn.js";

const proposalSchema = z.object({
  command: z
    .string()
    .nullable()
    .describe("one shell command that exits 0 only when the task is done; null when none can tell"),
  reason: z.string().describe("why it shows the task is done, or why no command can"),
});

/** What the model said would show the task is done, asked once per session. */
export interface Proposal {
  check: Check | undefined;
  reason: string;
}

/** The workspace's top-level names are enough for a model to pick a file to grep or a program to run. */
const LISTED_NAMES = 40;

/**
 * Asks the `cheap` model for the command that would show the task is done, where the project
 * has no check of its own (the ledit design: the model helps decide how to validate). A small
 * request: the task, the changed files and the workspace's top level.
 */
export async function proposeCheck(turn: Turn, task: string, changed: string[]): Promise<Proposal> {
  const { session } = turn;
  const names = (await readdir(session.workspace).catch(() => [] as string[]))
    .filter((name) => name !== ".git" && name !== ".cairn")
    .sort()
    .slice(0, LISTED_NAMES);
  const answer = await askStructured(turn, {
    phase: "validation",
    model: await session.modelFor("cheap"),
    name: "check",
    instructions: phaseInstructions("check"),
    prompt: [
      `# Task\n${task}`,
      `# Files changed\n${changed.join("\n")}`,
      `# Workspace (top level)\n${names.join("\n")}`,
    ].join("\n\n"),
    schema: proposalSchema,
    attempts: 2,
  });
  const command = answer.command?.trim();
  // Some models write "no command" as a word rather than as null.
  if (!command || /^(null|none|n\/a)$/i.test(command)) return { check: undefined, reason: answer.reason };
  return {
    check: { name: "proposed check", command, kind: "test", source: "proposed" },
    reason: answer.reason,
  };
}

/**
 * Runs the model's proposed check as the command it is: a `run_command` call, asked about and
 * confined like any command the model runs, since nobody but the model vouches for it. Its own
 * turn, so that a refusal for want of someone to approve it does not read as the task's work
 * being blocked: the work stands, unverified. Undefined when it was not allowed to run.
 */
export async function runProposedCheck(
  session: Turn["session"],
  check: Check,
  attempt: number,
): Promise<{ result: CheckResult } | { refused: string }> {
  return Turn.run(session, { label: "proposed check" }, async (turn) => {
    const call = { id: `check-${attempt}`, name: "run_command", input: { command: check.command } };
    const started = Date.now();
    const outcome = await executeToolCall(turn, prepareToolCall(session.registry, call));
    const data = outcome.data?.kind === "command" ? outcome.data : undefined;
    if (!outcome.ok || !data) return { refused: outcome.text.split("\n")[0] ?? "it could not run" };
    const passed = data.exit_code === 0 && !data.timed_out && !data.cancelled;
    return {
      result: {
        ...check,
        passed,
        exit_code: data.exit_code,
        timed_out: data.timed_out,
        duration_ms: data.duration_ms || Date.now() - started,
        output: outcome.text,
        failures: passed ? [] : parseFailures(outcome.text, { cwd: session.workspace }),
      },
    };
  });
}
