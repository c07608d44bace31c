import type { Assessment, CheckSource, RunStatus } from "../events/types.js";
import { firstLine, plural } from "../platform/text.js";
import type { ValidationReport } from "../verify/check.js";
import type { Review } from "./schemas.js";

export interface AssessmentInput {
  status: RunStatus;
  /** The files the session changed. */
  changed: string[];
  /** The last checks run, when any ran (or were looked for). */
  validation: ValidationReport | undefined;
  /** The last review of the work as it ended, when there was one. */
  review: Review | undefined;
  /** What the last round left to fix (failures, review issues): what remains when the run did not end done. */
  pending: string[];
  /**
   * `cairn do` and chat check with --verify, or the project's own check the agent ran: a change
   * with neither is not checked, by design.
   */
  mode: "do" | "run" | "chat";
}

const WHO: Record<CheckSource, string> = {
  verify: "the check you gave (--verify)",
  task: "the check the task names",
  project: "the project's own check",
  docs: "the check the project's README or guides name",
  ci: "the check the project's CI runs",
  agent: "the project's own check, which the agent ran after its last change",
  file_system: "the file system",
  proposed: "a check the model proposed, as nothing else was found",
};

/** Why nothing checked a change when no check was looked for. */
const UNCHECKED: Record<AssessmentInput["mode"], string> = {
  do: "no --verify, and the agent ran no project check after its last change",
  chat: "no --verify, and the agent ran no project check after its last change",
  run: "no check ran",
};

function commandList(checks: ReadonlyArray<{ command: string }>): string {
  return checks.map((check) => `\`${check.command}\``).join(", ");
}

/**
 * An issue in one line: its first, and when that only introduces what follows ("Validation
 * failed:"), the line it introduces.
 */
function gist(issue: string): string {
  const [head = "", next] = issue
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean);
  return firstLine(head.endsWith(":") && next ? `${head} ${next}` : head, 200);
}

/** The strongest word among the checks that passed: the person's and the project's beat the model's. */
function confidenceOf(
  input: AssessmentInput,
  passed: Array<{ source: CheckSource }>,
): Assessment["confidence"] {
  if (input.status !== "completed") return "low";
  if (input.changed.length === 0 && passed.length === 0) return "high";
  if (passed.length === 0) return "low";
  const reviewDoubts = input.review !== undefined && !input.review.ready;
  if (passed.every((check) => check.source === "proposed") || reviewDoubts) return "medium";
  return "high";
}

/**
 * How sure cairn is, said from what it did rather than what the model claims: which checks ran
 * on whose word and whether they passed, what nothing checked, and what is left to do.
 */
export function assess(input: AssessmentInput): Assessment {
  const checks = input.validation?.checks ?? [];
  const verifiedBy = checks.map((check) => ({
    command: check.command,
    source: check.source,
    passed: check.passed,
  }));
  const passed = verifiedBy.filter((check) => check.passed);
  const failed = checks.filter((check) => !check.passed);
  const notVerified: string[] = [];
  // After checks that ran and failed, they are why nothing verified the change, not a missing check.
  const why =
    failed.length > 0 ? `${commandList(failed)} failed` : (input.validation?.reason ?? UNCHECKED[input.mode]);
  if (input.changed.length > 0 && passed.length === 0) {
    notVerified.push(`the change to ${plural(input.changed.length, "file")} (${why})`);
  }
  if (passed.length > 0 && passed.every((check) => check.source === "proposed"))
    notVerified.push(
      "anything beyond what the model's own check tests: the project has no checks of its own",
    );
  const remaining =
    input.status === "completed" ? [] : input.pending.map((issue) => gist(issue)).filter(Boolean);
  const confidence = confidenceOf(input, passed);

  const said: string[] = [];
  const [onDisk, commands] = [
    passed.filter((check) => check.source === "file_system"),
    passed.filter((check) => check.source !== "file_system"),
  ];
  if (onDisk.length > 0)
    said.push(`The file system shows it done: ${onDisk.map((c) => c.command).join("; ")}.`);
  if (commands.length > 0) {
    const sources = [...new Set(commands.map((check) => WHO[check.source]))];
    said.push(`${commandList(commands)} passed: ${sources.join(" and ")}.`);
  }
  if (failed.length > 0) said.push(`${commandList(failed)} failed.`);
  if (input.changed.length === 0 && checks.length === 0)
    said.push("Nothing was changed, so there was nothing to check.");
  else if (checks.length === 0) said.push(`Nothing checked the change: ${why}.`);
  if (input.review) {
    said.push(
      `The reviewer ${input.review.ready ? "accepted" : "did not accept"} the change (quality ${input.review.quality}/10).`,
    );
  }
  if (remaining.length > 0) said.push(`About ${plural(remaining.length, "problem")} left to fix.`);
  const level = { high: "High", medium: "Medium", low: "Low" }[confidence];
  return {
    confidence,
    verified_by: verifiedBy,
    not_verified: notVerified,
    self_assessment: `${level} confidence. ${said.join(" ")}`.trim(),
    remaining,
  };
}
