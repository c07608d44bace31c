import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { type Assessment, PHASES, type Phase, type UsageTotals } from "../events/types.js";
import { costTable } from "../model/costTable.js";
import type { CostRow } from "../model/usage.js";
import { formatCost, formatDuration } from "../platform/format.js";
import type { ValidationReport } from "../verify/check.js";
import type { IterationContext } from "./iteration.js";
import type { Session } from "./session.js";
import type { Ending } from "./settle.js";

export interface ReportInput {
  task: string;
  ending: Ending;
  /** One line saying why the run ended, when it did not simply complete. */
  headline: string;
  context: IterationContext;
  validation: ValidationReport | undefined;
  /** How sure cairn is: what verified the work, what did not, what is left. */
  assessment: Assessment;
  /** The model's last words from executing the plan. */
  notes: string;
  /** Why no reviewer read the change, for a run that has no review to show. */
  unreviewed: string;
}

/** The ledger's phases as cost rows; a phase with an unpriced call has its cost shown as unknown. */
function phaseRows(byPhase: Partial<Record<Phase, UsageTotals>>): CostRow[] {
  return PHASES.flatMap((phase) => {
    const usage = byPhase[phase];
    if (!usage) return [];
    const priced = usage.cost_usd !== null;
    return [
      {
        key: phase,
        ...usage,
        known_cost_usd: usage.cost_usd ?? 0,
        unknown_cost_calls: priced ? 0 : usage.calls,
      },
    ];
  });
}

/** Each change once: a moved file at its new place, "moved from" its old one. */
function fileList(context: IterationContext, changed: string[]): string {
  if (changed.length === 0) return "No files were changed.";
  return changed
    .flatMap((file) => {
      const change = context.changeOf(file);
      return change ? [`- \`${file}\` (${change})`] : [];
    })
    .join("\n");
}

const SOURCE_WORDS: Record<Assessment["verified_by"][number]["source"], string> = {
  verify: "--verify",
  task: "named in the task",
  project: "the project's",
  docs: "named in its guides",
  ci: "from its CI",
  agent: "the project's, run by the agent after its last change",
  file_system: "the file system",
  proposed: "proposed by the model",
};

function validationSection(report: ValidationReport | undefined): string {
  if (!report) return "Not run.";
  if (!report.ran) return `Nothing ran: ${report.reason ?? "nothing to run"}.`;
  const lines = report.checks.map(
    (check) =>
      `- ${check.passed ? "passed" : "FAILED"}: \`${check.command}\` (${SOURCE_WORDS[check.source]}, ${formatDuration(check.duration_ms)})`,
  );
  return report.passed ? lines.join("\n") : `${lines.join("\n")}\n\n\`\`\`\n${report.summary}\n\`\`\``;
}

/** How sure cairn is, in the report: the assessment's words and lists. */
function assessmentSection(assessment: Assessment): string {
  return [
    assessment.self_assessment,
    ...assessment.not_verified.map((what) => `- Not verified: ${what}`),
    ...assessment.remaining.map((what) => `- Left to do: ${what}`),
  ].join("\n");
}

function reviewSection(context: IterationContext, unreviewed: string): string {
  const review = context.lastReview;
  if (!review) return `No review: ${unreviewed}.`;
  const issues = review.issues.map(
    (i) => `- [${i.severity}] ${i.file ? `\`${i.file}\`: ` : ""}${i.description}`,
  );
  return [`${review.ready ? "Ready" : "Not ready"} · quality ${review.quality}/10`, ...issues].join("\n");
}

/**
 * The run's Markdown summary: what changed, how it was checked, what the reviewer said and what
 * each phase cost. Written to `.cairn/reports/<session>.md` and returned as the result summary.
 */
export async function writeReport(session: Session, input: ReportInput): Promise<string> {
  const totals = session.ledger.totals();
  const changed = [...session.filesChanged].sort();
  const spent = session.workspaceSpend();
  const allTime = spent !== undefined ? ` (${formatCost(spent)} all-time in this workspace)` : "";
  const markdown = [
    `# cairn run: ${input.task}`,
    `**Status:** ${input.ending.status} · ${input.ending.iterations} iteration${input.ending.iterations === 1 ? "" : "s"} · ${formatDuration(Date.now() - session.startedAt)} · ${formatCost(totals.cost_usd)}${allTime} · model ${session.main.model.id}`,
    input.headline,
    `## How sure\n${assessmentSection(input.assessment)}`,
    `## What changed\n${fileList(input.context, changed)}`,
    `## Validation\n${validationSection(input.validation)}`,
    input.context.repairs.length
      ? `## Deterministic repair\n${input.context.repairs.map((line) => `- ${line}`).join("\n")}`
      : "",
    `## Review\n${reviewSection(input.context, input.unreviewed)}`,
    input.context.pendingIssues.length && input.ending.status !== "completed"
      ? `## Open issues\n${input.context.pendingIssues.map((i) => `- ${i.replace(/\n/g, "\n  ")}`).join("\n")}`
      : "",
    // A run that ended on the model's answer has it as its headline already.
    input.notes && input.notes !== input.headline ? `## Notes from the model\n${input.notes}` : "",
    `## Cost by phase\n${costTable(phaseRows(session.ledger.phases()), "phase", "markdown")}`,
  ]
    .filter(Boolean)
    .join("\n\n");
  const dir = path.join(session.workspace, ".cairn", "reports");
  await mkdir(dir, { recursive: true });
  // Reports are the person's record, not part of the project: keep them out of git status.
  await writeFile(path.join(dir, ".gitignore"), "*\n");
  await writeFile(path.join(dir, `${session.id}.md`), `${session.redact(markdown)}\n`);
  return markdown;
}
