import { confinedCommand } from "../tools/command.js";
import { type CheckOptions, runValidation, type ValidationReport } from "../verify/check.js";
import type { ValidationPlan } from "../verify/plan.js";
import { detectValidation } from "../verify/strategy.js";
import { toolContextFor } from "./dispatch.js";
import type { Session } from "./session.js";
import type { Turn } from "./turn.js";

/**
 * What to run for this session's changes: `--verify` / config `verify`, else what the task names
 * and the project has.
 */
export function validationPlanFor(session: Session, task?: string): Promise<ValidationPlan> {
  return detectValidation(session.workspace, {
    ...(session.config.verify ? { verifyCommand: session.config.verify } : {}),
    changedFiles: [...session.filesChanged],
    ...(task ? { task } : {}),
  });
}

export function emitValidation(session: Session, report: ValidationReport): void {
  session.bus.emit({
    type: "validation",
    ran: report.ran,
    passed: report.passed,
    summary: report.summary,
    checks: report.checks.map((c) => ({
      name: c.name,
      command: c.command,
      passed: c.passed,
      duration_ms: c.duration_ms,
      source: c.source,
    })),
    ...(report.reason ? { reason: report.reason } : {}),
  });
}

/**
 * How checks run for a session: cancelled with it, confined by its sandbox and without secrets
 * in their environment like any command the model runs, since the model may have written the
 * scripts they call.
 */
export function checkOptions(turn: Turn): CheckOptions {
  const context = toolContextFor(turn);
  return {
    signal: turn.signal,
    environment: turn.session.commandEnv,
    spawnFor: (command) => confinedCommand(context, command),
  };
}

/** `cairn do --verify`: run the checks once, no repair, and report them. */
export async function validateOnce(turn: Turn): Promise<ValidationReport> {
  const { session } = turn;
  session.bus.emit({ type: "status", status: "validating" });
  const report = await runValidation(await validationPlanFor(session), checkOptions(turn));
  emitValidation(session, report);
  return report;
}
