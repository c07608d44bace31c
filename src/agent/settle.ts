import type { RunResult, RunStatus, ValidationSummary } from "../events/types.js";
import { ProviderError } from "../model/errors.js";
import { BudgetExceededError } from "./ledger.js";
import type { AgentSession } from "./session.js";
import { StructuredOutputError } from "./structured.js";

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

export function buildResult(session: AgentSession, ending: Ending): RunResult {
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
    },
    cost_usd: totals.cost_usd,
    duration_ms: Date.now() - session.startedAt,
  };
}

/** How an error that ended the work maps onto a run status; anything else is a bug and is rethrown. */
function endingFor(
  session: AgentSession,
  error: unknown,
  iterations: number,
): { ending: Ending; exitCode: 1 | 2 } {
  const end = (status: RunStatus, summary: string, exitCode: 1 | 2 = 1) => ({
    ending: { status, summary, iterations },
    exitCode,
  });
  if (error instanceof BudgetExceededError) {
    return end("budget_exceeded", `Stopped: ${error.message}. The work done so far is kept.`);
  }
  if (session.deadline?.aborted) {
    return end("budget_exceeded", "Stopped: the time cap was reached. The work done so far is kept.");
  }
  if (session.signal.aborted) return end("cancelled", "Cancelled by the user; changes made so far are kept.");
  if (error instanceof ProviderError) return end("failed", error.message, error.isConfiguration ? 2 : 1);
  if (error instanceof StructuredOutputError) return end("failed", error.message);
  throw error;
}

/**
 * Runs a session's work and ends it the one way every mode ends: a `session.finished` event
 * carrying the result, whether the work completed, hit a cap, lost its provider or was cancelled.
 */
export async function settle(
  session: AgentSession,
  work: () => Promise<Ending>,
  iterationsSoFar: () => number,
  /** Completes an ending reached through an error (the run's report), as a finished run's is. */
  finalize?: (ending: Ending) => Promise<Ending>,
): Promise<Outcome> {
  let ending: Ending;
  let exitCode: 0 | 1 | 2;
  try {
    ending = await work();
    exitCode = ending.status === "completed" ? 0 : 1;
  } catch (error) {
    const mapped = endingFor(session, error, iterationsSoFar());
    ending = mapped.ending;
    exitCode = mapped.exitCode;
    session.bus.emit({ type: "error", message: ending.summary, fatal: true });
    if (finalize && !session.signal.aborted) ending = await finalize(ending);
  }
  const result = buildResult(session, ending);
  session.bus.emit({ type: "session.finished", result });
  return { result, exitCode };
}
