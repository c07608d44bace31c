import { z } from "zod";
import type { ValidationReport } from "../verify/check.js";
import type { Review } from "./schemas.js";
import { askStructured, phaseInstructions, StructuredOutputError } from "./structured.js";
import type { Turn } from "./turn.js";

/** What one round of the run left open: its checks and its review. */
export interface RoundOutcome {
  validation: ValidationReport | undefined;
  review: Review | undefined;
}

export type Verdict = "closer" | "same" | "further";

export const progressSchema = z.object({
  verdict: z
    .enum(["closer", "same", "further"])
    .describe(
      "closer: fewer or smaller problems remain; same: the same problems, however worded; further: worse",
    ),
  reason: z.string().describe("one sentence"),
});

/** A failure the same way twice means the approach isn't working: numbers (times, counts) don't count. */
export function signatureOf({ validation, review }: RoundOutcome): string {
  if (validation?.passed === false) {
    const failures = validation.failures.map((f) => `${f.file}:${f.message}`);
    return `validation:${(failures.length ? failures.join("|") : validation.summary).replace(/\d+(\.\d+)?\s*m?s\b|\d+/g, "#")}`;
  }
  return `review:${(review?.issues ?? [])
    .map((i) => i.description)
    .sort()
    .join("|")}`;
}

/** How much is open after a round, most telling first: failing checks, failures, serious review issues. */
function openCount({ validation, review }: RoundOutcome): number[] {
  const failing = validation?.checks.filter((check) => !check.passed).length ?? 0;
  const serious = (review?.issues ?? []).filter((i) => i.severity !== "minor").length;
  return [
    failing,
    failing ? (validation?.failures.length ?? 0) : 0,
    review && !review.ready ? serious + 1 : 0,
  ];
}

function compare(a: number[], b: number[]): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return (a[i] ?? 0) - (b[i] ?? 0);
  return 0;
}

/** The problems a round left, in words, for the model to compare when counting cannot tell. */
export function openProblems({ validation, review }: RoundOutcome): string {
  const lines = [
    ...(validation?.passed === false ? [validation.summary.split("\n").slice(0, 12).join("\n")] : []),
    ...(review && !review.ready ? review.issues.map((i) => `- [${i.severity}] ${i.description}`) : []),
  ];
  return lines.join("\n") || "(none)";
}

/**
 * The model's judgement where counting cannot tell: the `cheap` profile, the open problems of two
 * rounds in a few lines. No usable answer is no sign of progress.
 */
export async function askProgress(
  turn: Turn,
  task: string,
  before: RoundOutcome,
  now: RoundOutcome,
): Promise<{ verdict: Verdict; reason: string }> {
  try {
    return await askStructured(turn, {
      phase: "progress",
      model: await turn.session.modelFor("cheap"),
      name: "progress",
      instructions: phaseInstructions("progress"),
      prompt: `# Task\n${task}\n\n# Open after the round before\n${openProblems(before)}\n\n# Open now\n${openProblems(now)}`,
      schema: progressSchema,
      attempts: 2,
    });
  } catch (error) {
    if (!(error instanceof StructuredOutputError)) throw error;
    return { verdict: "same", reason: "no judgement of progress could be had from the model" };
  }
}

/**
 * The progress phase's judgement between rounds (the ledit design's progress evaluation),
 * deterministic where it can be: a failure seen in any earlier round is no progress (so going
 * back and forth between two failures is caught too); fewer failing checks, failures or review
 * issues is progress, more is not. Only when the counts are equal and the problems differ is
 * the model asked, with `ask`.
 */
export class ProgressJudge {
  private readonly seen = new Set<string>();
  private last: RoundOutcome | undefined;

  /** Whether this failure of the checks was already seen in an earlier round. */
  seenBefore(validation: ValidationReport): boolean {
    return validation.passed === false && this.seen.has(signatureOf({ validation, review: undefined }));
  }

  async judge(
    outcome: RoundOutcome,
    ask: (before: RoundOutcome, now: RoundOutcome) => Promise<{ verdict: Verdict; reason: string }>,
  ): Promise<{ verdict: Verdict; reason: string } | undefined> {
    const before = this.last;
    const signature = signatureOf(outcome);
    const repeated = this.seen.has(signature);
    this.seen.add(signature);
    this.last = outcome;
    if (repeated) {
      return {
        verdict: "same",
        reason:
          outcome.validation?.passed === false
            ? "the checks failed the same way as in an earlier round"
            : "the reviewer raised the same issues as in an earlier round",
      };
    }
    if (!before) return undefined;
    const difference = compare(openCount(outcome), openCount(before));
    if (difference < 0)
      return { verdict: "closer", reason: "fewer problems are open than after the round before" };
    if (difference > 0)
      return { verdict: "further", reason: "more problems are open than after the round before" };
    return ask(before, outcome);
  }
}
