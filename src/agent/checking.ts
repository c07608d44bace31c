import path from "node:path";
import type { StampedEvent } from "../events/types.js";
import { reportFrom, runValidation, type ValidationReport } from "../verify/check.js";
import type { Check, ValidationPlan } from "../verify/plan.js";
import { repairSummary, tryFixers, tryMutations } from "../verify/repair.js";
import { type Proposal, proposeCheck, runProposedCheck } from "./checkProposal.js";
import type { IterationContext } from "./iteration.js";
import { StructuredOutputError } from "./structured.js";
import type { Turn } from "./turn.js";
import { checkOptions, emitValidation, validationPlanFor } from "./validate.js";

/** Checks whose failure a small mutation of the edited code can plausibly fix. */
const MUTABLE_CHECKS = new Set(["expected_output", "test"]);

/** The check the model proposed earlier in a session, read back from its log on resume. */
function proposedIn(events: StampedEvent[]): Check | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i];
    if (event?.type !== "validation") continue;
    const proposed = event.checks.find((check) => check.source === "proposed");
    if (proposed) return { name: proposed.name, command: proposed.command, kind: "test", source: "proposed" };
  }
  return undefined;
}

/**
 * The validate phase of `cairn run`: the checks found for the work (or, where the project has
 * none, the one the model proposes, asked once and kept for the session), run, then repaired
 * without a model where a fixer or a small mutation can, and reported as a `validation` event.
 */
export class RunChecks {
  private readonly turn: Turn;
  private readonly task: string;
  private proposal: Proposal | undefined;
  private proposedRuns = 0;

  constructor(turn: Turn, task: string, resumedEvents: StampedEvent[] = []) {
    this.turn = turn;
    this.task = task;
    const proposed = proposedIn(resumedEvents);
    if (proposed) this.proposal = { check: proposed, reason: "proposed earlier in this session" };
  }

  async run(context: IterationContext): Promise<ValidationReport> {
    const { session } = this.turn;
    session.bus.emit({ type: "status", status: "validating" });
    const plan = await validationPlanFor(session, this.task);
    const report =
      plan.checks.length === 0 && session.filesChanged.size > 0
        ? await this.proposed(plan)
        : await this.repaired(plan, context);
    context.recentRanges.clear();
    emitValidation(session, report);
    return report;
  }

  /** Where nothing was found: the model's proposal, run as the command it is, or the reason there is none. */
  private async proposed(plan: ValidationPlan): Promise<ValidationReport> {
    const { session } = this.turn;
    this.proposal ??= await proposeCheck(this.turn, this.task, [...session.filesChanged].sort()).catch(
      (error: unknown) => {
        if (error instanceof StructuredOutputError) return { check: undefined, reason: error.message };
        throw error;
      },
    );
    const { check, reason } = this.proposal;
    const none = (why: string) => runValidation({ workspace: plan.workspace, checks: [], reason: why });
    if (!check) return none(`${plan.reason ?? "no check found"}; the model proposed none (${reason})`);
    const ran = await runProposedCheck(session, check, ++this.proposedRuns);
    if ("refused" in ran)
      return none(`the check the model proposed, \`${check.command}\`, did not run: ${ran.refused}`);
    return reportFrom([ran.result]);
  }

  /** The checks found, run, with the deterministic repairs tried before any model round. */
  private async repaired(plan: ValidationPlan, context: IterationContext): Promise<ValidationReport> {
    const { session } = this.turn;
    const options = checkOptions(this.turn);
    let report = await runValidation(plan, options);
    if (report.passed === false && report.checks.some((check) => !check.passed && check.fixer)) {
      report = await tryFixers(plan, report, {
        ...options,
        onAttempt: (attempt) =>
          session.bus.emit({
            type: "repair",
            kind: "fixer",
            description: `${attempt.command} for ${attempt.check}`,
            passed: attempt.passed,
            kept: true,
          }),
      });
    }
    const failing = report.checks.find((check) => !check.passed && MUTABLE_CHECKS.has(check.kind));
    if (report.passed !== false || !failing || context.recentRanges.size === 0) return report;
    const only: ValidationPlan = {
      ...plan,
      checks: plan.checks.filter((check) => check.name === failing.name),
    };
    const others: ValidationPlan = {
      ...plan,
      checks: plan.checks.filter((check) => check.name !== failing.name),
    };
    const mutation = await tryMutations(
      [...context.recentRanges].map(([file, ranges]) => ({ path: file, ranges })),
      {
        cwd: session.workspace,
        signal: this.turn.signal,
        validate: async () => (await runValidation(only, { ...options, failFast: true })).passed === true,
        // Kept only when nothing else breaks with it.
        confirm: async () =>
          others.checks.length === 0 ||
          (await runValidation(others, { ...options, failFast: true })).passed === true,
        onAttempt: (attempt) =>
          session.bus.emit({
            type: "repair",
            kind: "mutation",
            description: `${attempt.file}:${attempt.line} ${attempt.description}${attempt.broke ? ` (${attempt.broke})` : ""}`,
            passed: attempt.passed,
            kept: attempt.passed,
          }),
      },
    );
    context.repairs.push(repairSummary(mutation));
    if (!mutation.fixed) {
      // Every file tried was put back as it was: cairn's own write, not a change behind the
      // model's back, so its next edit is not refused as made to a stale file.
      for (const file of context.recentRanges.keys())
        await session.reads.remember(path.resolve(session.workspace, file));
      return report;
    }
    return runValidation(plan, options);
  }
}
