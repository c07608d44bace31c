import { trustEvent } from "../config/trust/decide.js";
import type {
  Assessment,
  EndingReason,
  EventOf,
  RunResult,
  RunStatus,
  ValidationSummary,
} from "../events/types.js";
import { ProviderError } from "../model/errors.js";
import { outputCap } from "../model/outputCap.js";
import { assess } from "./assessment.js";
import { BudgetExceededError } from "./ledger.js";
import { ENDINGS } from "./phases.js";
import type { ResumePoint } from "./resume.js";
import type { Session } from "./session.js";
import { StructuredOutputError } from "./structured.js";
import type { ToolLoopOutcome } from "./toolLoop.js";
import type { Turn } from "./turn.js";

export interface Ending {
  status: RunStatus;
  reason: EndingReason;
  summary: string;
  iterations: number;
  validation?: ValidationSummary | null;
  /** How sure cairn is; worked out from the ending and its validation when the work did not say. */
  assessment?: Assessment;
}

/** What a turn was given: the person's task, message or command, and how it is worked on. */
export type TurnInput = Pick<EventOf<"turn.started">, "mode" | "input">;

export interface Outcome {
  result: RunResult;
  /** The exit code of the ending (phases.ts `ENDINGS`); 2 for bad usage or configuration. */
  exitCode: 0 | 1 | 2 | 3;
  /** The ending the result was built from, to end the session with when this was its last turn. */
  ending: Ending;
}

/**
 * What the model is given as the task: the task, and what the caller said about it apart from
 * it (Efrit's `goal` and `context`), under a heading of its own.
 */
export function taskWithContext(task: string, context: string | undefined): string {
  return context?.trim() ? `${task}\n\n# Context given with the task\n${context.trim()}` : task;
}

/**
 * Opens a turn of the session: its `turn.started`, after the session's own first event when this
 * is its first turn (`session.started`, and what the person should know from the start), or its
 * continuation after an interruption (`session.resumed`). `context` is what the caller said
 * about the task apart from it (the HTTP API's), recorded with the session.
 */
export function announce(session: Session, input: TurnInput, resume?: ResumePoint, context?: string): void {
  if (resume) {
    session.bus.emit({
      type: "session.resumed",
      after_seq: resume.events.at(-1)?.seq ?? 0,
      interrupted_calls: resume.interrupted.map((call) => call.tool),
    });
    const trust = trustEvent(session.trust);
    if (trust) session.bus.emit(trust);
  } else {
    announceSession(session, input.input, context);
    if (session.turns === 0) startingNotices(session);
  }
  session.bus.emit({ type: "turn.started", turn: ++session.turns, ...input });
}

/**
 * The session's first event (`session.started`), once: with its first turn, or before it where a
 * front end records the session as soon as it is opened (an editor's new thread, `task` empty).
 */
export function announceSession(session: Session, task: string, context?: string): void {
  if (session.announced) return;
  session.announced = true;
  session.bus.emit({
    type: "session.started",
    mode: session.mode,
    task,
    ...(context?.trim() ? { context } : {}),
    model: session.main.model.id,
    workspace: session.recordedWorkspace,
    ...(session.recordedWorkspace !== session.workspace ? { worked_in: session.workspace } : {}),
  });
}

/** What the person should know before the session's first turn, said once, where they will see it. */
function startingNotices(session: Session): void {
  // What the workspace's files asked for, and whether it applied, is on record with the session.
  const trust = trustEvent(session.trust);
  if (trust) session.bus.emit(trust);
  // An agent, command or skill file that cannot be read leaves the others working: said at the start.
  for (const problem of [
    ...session.found.agents.problems,
    ...session.found.commands.problems,
    ...session.found.skills.problems,
  ])
    session.bus.emit({ type: "error", fatal: false, message: `Skipped: ${problem}` });
  if (session.config.max_cost_usd !== undefined && session.main.model.info.price === null) {
    session.bus.emit({
      type: "error",
      fatal: false,
      message:
        `The price of ${session.main.model.id} is unknown, so --max-cost cannot stop this session. ` +
        `Set models.${session.main.model.id}.price in the config to enforce it; --max-tokens works without prices.`,
    });
  }
}

export function buildResult(session: Session, ending: Ending): RunResult {
  const totals = session.ledger.totals();
  const spent = session.workspaceSpend();
  const changed = [...session.filesChanged].sort();
  return {
    session_id: session.id,
    status: ending.status,
    reason: ending.reason,
    summary: ending.summary,
    iterations: ending.iterations,
    files_changed: changed,
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
    ...(spent !== undefined ? { workspace_cost_usd: spent } : {}),
    duration_ms: Date.now() - session.startedAt,
    assessment:
      ending.assessment ??
      assess({
        status: ending.status,
        changed,
        validation: undefined,
        review: undefined,
        pending: ending.status === "completed" || ending.reason === "unchecked" ? [] : [ending.summary],
        mode: session.mode,
      }),
  };
}

/** The ending a result was built from, as a stored `turn.finished` says it. */
export function endingOf(result: RunResult): Ending {
  const { status, reason, summary, iterations, validation, assessment } = result;
  return { status, reason, summary, iterations, validation, assessment };
}

/**
 * How an error that ended the work maps onto a run status. Anything else is a bug: the work
 * ended `failed` (reason `internal`), and the error is thrown on once the turn is settled.
 */
function endingFor(
  turn: Turn,
  error: unknown,
  iterations: number,
): { ending: Ending; exitCode: 1 | 2; bug?: true } {
  const end = (status: RunStatus, reason: EndingReason, summary: string, exitCode: 1 | 2 = 1) => ({
    ending: { status, reason, summary, iterations },
    exitCode,
  });
  if (error instanceof BudgetExceededError) {
    return end("budget_exceeded", error.cap, `Stopped: ${error.message}. The work done so far is kept.`);
  }
  if (turn.timedOut) {
    return end(
      "budget_exceeded",
      "time_cap",
      "Stopped: the time cap was reached. The work done so far is kept.",
    );
  }
  if (turn.signal.aborted) return end("cancelled", "interrupted", cancelledSummary(turn));
  if (error instanceof ProviderError) {
    return error.isConfiguration
      ? end("failed", "configuration", error.message, 2)
      : end("failed", "provider_error", error.message);
  }
  if (error instanceof StructuredOutputError) return end("failed", "bad_model_output", error.message);
  return { ...end("failed", "internal", error instanceof Error ? error.message : String(error)), bug: true };
}

/** Why a tool loop (or the agent it handed the work to) could not finish. */
export function failedReason(outcome: ToolLoopOutcome): EndingReason {
  if (outcome.cut) return outcome.cut;
  return outcome.invalidCalls ? "bad_model_output" : "work_failed";
}

/**
 * The ending of one tool loop's work (`cairn do`, a chat message), given whether it changed files:
 * they check only with --verify or the project's own check the agent ran, so a change the model
 * finished is `unverified`, reason `unchecked` (completed means a check passed, or that nothing
 * changed), until `checkedEnding` finds the check.
 */
export function loopEnding(changed: boolean, outcome: ToolLoopOutcome, summary: string): Ending {
  const end = (status: RunStatus, reason: EndingReason): Ending => ({
    status,
    reason,
    summary,
    iterations: 1,
  });
  if (outcome.status === "cancelled") return end("cancelled", "interrupted");
  // An answer cut short (the output cap, the provider's filter) is not a finished one.
  if (outcome.status === "failed" || outcome.cut) return end("failed", failedReason(outcome));
  return changed ? end("unverified", "unchecked") : end("completed", "answered");
}

/** What stopped the work, as the interrupt said it (Ctrl-C, a signal, a front end's cancel). */
function cancelledSummary(turn: Turn): string {
  const reason = turn.signal.reason instanceof Error ? turn.signal.reason.message : "";
  return `Cancelled${reason ? ` (${reason})` : " by the user"}; the changes made so far are kept, and the session can be resumed.`;
}

/**
 * Work that ended after someone stopped it ended because they did, whatever it returned: a run
 * whose command a signal killed, or whose question an interrupt dismissed, is cancelled (and can
 * be resumed), not completed or stuck. One the wall-time cap stopped reached that cap.
 */
function stoppedEnding(turn: Turn, ending: Ending): Ending {
  if (!turn.signal.aborted) return ending;
  const { status, summary, iterations, validation } = ending;
  if (turn.timedOut)
    return status === "completed"
      ? ending
      : { status: "budget_exceeded", reason: "time_cap", summary, iterations, validation };
  if (status === "cancelled") return ending;
  return { status: "cancelled", reason: "interrupted", summary: cancelledSummary(turn), iterations };
}

/** Whether an ending says the work was done without a passing check to prove it. */
const claimsDone = (ending: Ending) =>
  (ending.status === "completed" || ending.status === "unverified") && ending.validation?.passed !== true;

/** The ending of work that was not done after all: `failed` for `reason`, what is missing said first. */
function notDone(ending: Ending, reason: EndingReason, why: string): Ending {
  const { assessment: _, ...rest } = ending;
  return { ...rest, status: "failed", reason, summary: `Not done: ${why}\n\n${ending.summary}`.trim() };
}

/**
 * A task "completed" whose needed calls were all refused for want of approval (headless) was not
 * done, whatever the model's last words say; checks that passed prove otherwise.
 */
function blockedEnding(turn: Turn, ending: Ending): Ending {
  const blocked = claimsDone(ending) ? turn.blockedCalls() : [];
  if (blocked.length === 0) return ending;
  const calls = [...new Set(blocked)].slice(0, 5).join("; ");
  return notDone(
    ending,
    "needs_approval",
    `the work needed approval that nobody could give in this run (refused: ${calls}). ` +
      "Rerun where a person can approve, or with the mode or rule the refusal names.",
  );
}

/**
 * A task "completed" after the answer's length limit cut a call off before its arguments were
 * whole was not done, whatever the model says next (it often says it wrote the file): the call
 * never ran, and no later call made it good. Checks that passed prove otherwise.
 */
function cutEnding(turn: Turn, ending: Ending): Ending {
  const cut = claimsDone(ending) ? turn.cutCalls() : [];
  if (cut.length === 0) return ending;
  const one = cut.length === 1;
  const cap = outputCap(turn.model.info, turn.session.config.max_output_tokens, 0).tokens;
  return notDone(
    ending,
    "output_cap",
    `the model's answer reached its length limit in the middle of ${cut.slice(0, 5).join("; ")}, so ` +
      `${one ? "that call" : "those calls"} never ran and nothing of ${one ? "it" : "them"} is on disk, ` +
      `whatever the answer says. Raise max_output_tokens (${cap} tokens here; docs/limits.md), ` +
      "or ask for the change in smaller parts.",
  );
}

/**
 * Runs a turn's work and ends it the one way every mode ends: a `turn.finished` event carrying
 * the result, whether the work completed, hit a cap, lost its provider or was cancelled. A bug
 * ends it too, `failed` for reason `internal`, and is then thrown on to whoever started the work:
 * no session is left running on one, and no front end ends a session itself.
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
  let exitCode: 0 | 1 | 2 | 3;
  let bug: unknown;
  try {
    ending = stoppedEnding(turn, cutEnding(turn, blockedEnding(turn, await work())));
    exitCode = ENDINGS[ending.status].exitCode;
  } catch (error) {
    const mapped = endingFor(turn, error, iterationsSoFar());
    ending = mapped.ending;
    exitCode = mapped.exitCode;
    if (mapped.bug) bug = error;
    session.bus.emit({ type: "error", message: ending.summary, fatal: true, reason: ending.reason });
    // The report needs no model: a cancelled run gets one too, with what it did so far.
    if (finalize && !mapped.bug) ending = await finalize(ending);
  }
  const result = buildResult(session, ending);
  session.bus.emit({ type: "turn.finished", turn: session.turns, result });
  if (bug !== undefined) throw bug;
  return { result, exitCode, ending };
}

/**
 * The session's last event: how it ended, as its last turn did, with the session's whole
 * spending and time. A do or run ends after its task; a chat when it is closed.
 */
export function finishSession(session: Session, last: Ending): RunResult {
  const result = buildResult(session, last);
  session.bus.emit({ type: "session.finished", result });
  return result;
}
