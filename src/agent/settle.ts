import type { RunResult, RunStatus, ValidationSummary } from "../events/types.js";
import { ProviderError } from "../model/errors.js";
import { BudgetExceededError } from "./ledger.js";
import type { ResumePoint } from "./resume.js";
import type { Session } from "./session.js";
import { StructuredOutputError } from "./structured.js";
import type { Turn } from "./turn.js";

export interface Ending {
  status: RunStatus;
  summary: string;
  iterations: number;
  validation?: ValidationSummary | null;
}

export interface Outcome {
  result: RunResult;
  /** DESIGN.md's exit codes: 0 completed, 1 not completed, 2 bad usage or configuration. */
  exitCode: 0 | 1 | 2;
}

/**
 * What the model is given as the task: the task, and what the caller said about it apart from
 * it (Efrit's `goal` and `context`), under a heading of its own.
 */
export function taskWithContext(task: string, context: string | undefined): string {
  return context?.trim() ? `${task}\n\n# Context given with the task\n${context.trim()}` : task;
}

/** The first event of a session, or of its continuation after an interruption. */
export function announce(session: Session, task: string, resume?: ResumePoint, context?: string): void {
  session.announced = true;
  if (resume) {
    session.bus.emit({
      type: "session.resumed",
      after_seq: resume.events.at(-1)?.seq ?? 0,
      interrupted_calls: resume.interrupted.map((call) => call.tool),
    });
    return;
  }
  session.bus.emit({
    type: "session.started",
    mode: session.mode,
    task,
    ...(context?.trim() ? { context } : {}),
    model: session.model.id,
    workspace: session.recordedWorkspace,
    ...(session.recordedWorkspace !== session.workspace ? { worked_in: session.workspace } : {}),
  });
  // An agent file that cannot be read leaves the others working: said once, at the start.
  for (const problem of session.agents.problems)
    session.bus.emit({ type: "error", fatal: false, message: `Skipped: ${problem}` });
  if (session.config.max_cost_usd !== undefined && session.model.info.price === null) {
    session.bus.emit({
      type: "error",
      fatal: false,
      message:
        `The price of ${session.model.id} is unknown, so --max-cost cannot stop this session. ` +
        `Set models.${session.model.id}.price in the config to enforce it; --max-tokens works without prices.`,
    });
  }
}

export function buildResult(session: Session, ending: Ending): RunResult {
  const totals = session.ledger.totals();
  return {
    session_id: session.id,
    status: ending.status,
    summary: ending.summary,
    iterations: ending.iterations,
    files_changed: [...session.filesChanged].sort(),
    validation: ending.validation ?? null,
    usage: {
      input_tokens: totals.input_tokens,
      output_tokens: totals.output_tokens,
      cached_input_tokens: totals.cached_input_tokens,
      cache_write_tokens: totals.cache_write_tokens,
      reasoning_tokens: totals.reasoning_tokens,
      by_phase: session.ledger.phases(),
      by_agent: session.ledger.agents(),
    },
    cost_usd: totals.cost_usd,
    ...(session.workspaceSpend ? { workspace_cost_usd: session.workspaceSpend() } : {}),
    duration_ms: Date.now() - session.startedAt,
  };
}

/** How an error that ended the work maps onto a run status; anything else is a bug and is rethrown. */
function endingFor(turn: Turn, error: unknown, iterations: number): { ending: Ending; exitCode: 1 | 2 } {
  const end = (status: RunStatus, summary: string, exitCode: 1 | 2 = 1) => ({
    ending: { status, summary, iterations },
    exitCode,
  });
  if (error instanceof BudgetExceededError) {
    return end("budget_exceeded", `Stopped: ${error.message}. The work done so far is kept.`);
  }
  if (turn.timedOut) {
    return end("budget_exceeded", "Stopped: the time cap was reached. The work done so far is kept.");
  }
  if (turn.signal.aborted) return end("cancelled", "Cancelled by the user; changes made so far are kept.");
  if (error instanceof ProviderError) return end("failed", error.message, error.isConfiguration ? 2 : 1);
  if (error instanceof StructuredOutputError) return end("failed", error.message);
  throw error;
}

/**
 * A task "completed" whose needed calls were all refused for want of approval (headless) was not
 * done, whatever the model's last words say; checks that passed prove otherwise.
 */
function blockedEnding(turn: Turn, ending: Ending): Ending {
  if (ending.status !== "completed" || ending.validation?.passed === true) return ending;
  const blocked = turn.blockedCalls();
  if (blocked.length === 0) return ending;
  const calls = [...new Set(blocked)].slice(0, 5).join("; ");
  return {
    ...ending,
    status: "failed",
    summary:
      `Not done: the work needed approval that nobody could give in this run (refused: ${calls}). ` +
      `Rerun where a person can approve, or with the mode or rule the refusal names.\n\n${ending.summary}`.trim(),
  };
}

/**
 * Runs a session's work and ends it the one way every mode ends: a `session.finished` event
 * carrying the result, whether the work completed, hit a cap, lost its provider or was cancelled.
 */
export async function settle(
  turn: Turn,
  work: () => Promise<Ending>,
  iterationsSoFar: () => number,
  /** Completes an ending reached through an error (the run's report), as a finished run's is. */
  finalize?: (ending: Ending) => Promise<Ending>,
): Promise<Outcome> {
  const { session } = turn;
  let ending: Ending;
  let exitCode: 0 | 1 | 2;
  try {
    ending = blockedEnding(turn, await work());
    exitCode = ending.status === "completed" ? 0 : 1;
  } catch (error) {
    const mapped = endingFor(turn, error, iterationsSoFar());
    ending = mapped.ending;
    exitCode = mapped.exitCode;
    session.bus.emit({ type: "error", message: ending.summary, fatal: true });
    if (finalize && !turn.signal.aborted) ending = await finalize(ending);
  }
  const result = buildResult(session, ending);
  session.bus.emit({ type: "session.finished", result });
  return { result, exitCode };
}
