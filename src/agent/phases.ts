/**
 * The run loop's state machine (docs/loop.md): each phase of `cairn run`, what it needs, where it
 * can lead, and the one pure function that decides where it leads. The loop (runTask.ts) does a
 * phase's work, updates the facts, and asks `nextPhase` what comes next; an ending ends the run.
 * Every way to `completed` goes through a passing check, or through a run that changed nothing
 * and was asked to check nothing: `ENDINGS` says what each ending requires, and the table test
 * (test/agent/phases.test.ts) walks every combination of facts to hold the function to it.
 */
import type { EndingReason, Phase, RunStatus } from "../events/types.js";

/**
 * The loop's own steps that are no phase of its accounting: tier 0's answer, tier 1's single tool
 * loop, escalating, asking the person, asking the Stop hooks. Their model calls, where they make
 * any, are booked under the phase they serve.
 */
type LoopStep = "answer" | "single" | "escalate" | "ask" | "stop_hook";

/**
 * The phases of `cairn run`: the phases its spending is booked under (`PHASES`, public in every
 * result's `by_phase`), but the two no run goes through as a step of its own (the closing summary,
 * compaction), and its own steps. One vocabulary: a phase that asks a model is named as the
 * phase its tokens are booked under.
 */
export type RunPhase = Exclude<Phase, "summary" | "compaction"> | LoopStep;

/** Where a phase leads: another phase, or an ending. */
export type Next = RunPhase | RunStatus;

/** What the loop knows when a phase is done, from which the next one is decided. */
export interface RunFacts {
  /** How the task was routed: a tier-0 pattern, tier 1's single tool loop, or tier 2's plan. */
  route: "answer" | "single" | "plan" | undefined;
  /** The task has been analysed (the intent a plan needs). */
  analysed: boolean;
  /** The single tool loop could not finish (invalid tool calls, its tool-call budget spent). */
  workFailed: boolean;
  /** The run has changed files in the workspace. */
  changed: boolean;
  /** `--verify` (or config `verify`) was given: it runs at the end, whatever changed. */
  verifyGiven: boolean;
  /** The checks on the work as it stands: undefined until they run after the last change. */
  checks: "passed" | "failed" | "none" | undefined;
  /**
   * Who vouches for the checks that ran: the person or the project, the file system (a tier-0
   * file command's postcondition), or only the model.
   */
  checkedBy: "person" | "project" | "file_system" | "model" | undefined;
  /** The checks failed the same way in an earlier round: a review would only repeat them. */
  failureSeen: boolean;
  /** The reviewer's verdict on the work as it stands: undefined until it is asked. */
  review: "ready" | "not_ready" | undefined;
  /** Rounds in a row that came no closer to done (the progress phase's count). */
  stalled: number;
  escalated: boolean;
  /** A stronger model than the one working is configured (profiles.strong). */
  canEscalate: boolean;
  /** A person is there to ask. */
  canAsk: boolean;
  /** The person answered when asked. */
  advised: boolean;
  /**
   * What the Stop hooks say of the work as it stands (docs/hooks.md): `unasked` until they are
   * asked, once a round's work would end the run; `go_on` sends it back for another round with
   * their reason, `let_go` lets it end. Undefined where there are none to ask: none are set, or
   * they sent the run back MAX_STOP_CONTINUES times already.
   */
  stopHook: "unasked" | "go_on" | "let_go" | undefined;
  /** Rounds begun so far (a plan, or the single loop), counted from 1. */
  iteration: number;
  maxIterations: number;
}

export const INITIAL_FACTS: Omit<RunFacts, "verifyGiven" | "canAsk" | "maxIterations"> = {
  route: undefined,
  analysed: false,
  workFailed: false,
  changed: false,
  checks: undefined,
  checkedBy: undefined,
  failureSeen: false,
  review: undefined,
  stalled: 0,
  escalated: false,
  canEscalate: false,
  advised: false,
  stopHook: undefined,
  iteration: 0,
};

/** Rounds in a row without getting closer after which the run stops (or asks): the second repeat. */
export const STALLED_LIMIT = 2;

/**
 * The phases: what each needs to run, and every place it can lead. The loop (runTask.ts) holds
 * every transition it takes to its phase's row, and has the work of each phase in a record of the
 * same keys: a phase added here does not compile until it has its work there.
 */
export const PHASE_TABLE: { readonly [P in RunPhase]: { needs: string; next: readonly Next[] } } = {
  routing: { needs: "the task", next: ["answer", "single", "analysis"] },
  answer: {
    needs: "a task a text pattern answers (tier 0)",
    next: ["validation", "completed", "failed", "stop_hook"],
  },
  single: {
    needs: "a trivial or read-only task, classified at confidence ≥ 0.9 (tier 1)",
    next: ["validation", "completed", "failed", "stop_hook"],
  },
  analysis: { needs: "the task and the workspace's facts", next: ["planning"] },
  planning: { needs: "the intent, and the pending issues of the rounds before", next: ["execution"] },
  execution: { needs: "a plan with steps", next: ["validation", "completed", "stop_hook"] },
  validation: {
    needs: "changed files, or --verify",
    next: ["review", "progress", "completed", "unverified", "failed", "stop_hook"],
  },
  review: { needs: "changed files", next: ["progress", "completed", "unverified", "stop_hook"] },
  progress: {
    needs: "a round that did not end the run",
    next: ["analysis", "planning", "escalate", "ask", "stuck", "max_iterations"],
  },
  escalate: { needs: "a round that came no closer, and a stronger model", next: ["analysis", "planning"] },
  ask: { needs: "rounds that came no closer, and a person", next: ["analysis", "planning", "stuck"] },
  stop_hook: {
    needs: "Stop hooks to ask, and a round whose work would end the run completed or unverified",
    next: ["analysis", "planning", "completed", "unverified", "progress", "max_iterations"],
  },
};

/** Every phase, in the table's order. */
export const RUN_PHASES = Object.keys(PHASE_TABLE) as RunPhase[];

/** What each ending means, what it requires, its reasons and its exit code (docs/loop.md). */
export const ENDINGS: Record<
  RunStatus,
  { means: string; requires: string; reasons: readonly EndingReason[]; exitCode: 0 | 1 | 2 | 3 }
> = {
  completed: {
    means: "the task is done, and a check says so",
    requires:
      "the checks passed on the work as it ended (and the reviewer, where asked, is satisfied); or nothing changed and no --verify was given",
    reasons: ["checks_passed", "answered"],
    exitCode: 0,
  },
  unverified: {
    means: "the work is done as far as cairn can tell, but nothing could check it",
    requires:
      "files changed, no check was found, none the model proposed could run, and the reviewer is satisfied; or `cairn do` or a chat message changed files without --verify (reason `unchecked`: they check only with it)",
    reasons: ["no_check", "unchecked"],
    exitCode: 3,
  },
  failed: {
    means: "the task could not be done",
    requires:
      "the checks failed with no round left to fix them, or the model, its provider, an approval or a hook failed the work, or the model's last answer was cut short",
    reasons: [
      "checks_failed",
      "needs_approval",
      "blocked_by_hook",
      "tool_call_cap",
      "output_cap",
      "refused",
      "work_failed",
      "provider_error",
      "configuration",
      "bad_model_output",
      "internal",
    ],
    exitCode: 1,
  },
  stuck: {
    means: "rounds kept coming no closer, after a stronger model and a person (where there are)",
    requires: `${STALLED_LIMIT} rounds in a row that came no closer, and no answer from a person`,
    reasons: ["no_progress"],
    exitCode: 1,
  },
  max_iterations: {
    means: "the iteration cap was reached before the work was verified",
    requires: "--max-iterations rounds, the last of them not done (or a Stop hook still asking for more)",
    reasons: ["iteration_cap"],
    exitCode: 1,
  },
  budget_exceeded: {
    means: "a cap on cost, tokens or time stopped the run",
    requires: "--max-cost, --max-tokens or --timeout reached",
    reasons: ["cost_cap", "token_cap", "time_cap"],
    exitCode: 1,
  },
  cancelled: {
    means: "a person or a signal stopped the run; its work so far is kept, and it can be resumed",
    requires: "Ctrl-C, SIGTERM, SIGHUP, or an interrupt from a front end",
    reasons: ["interrupted"],
    exitCode: 1,
  },
};

export function isEnding(next: Next): next is RunStatus {
  return next in ENDINGS;
}

/** Whether the work must be checked before the run can end: something changed, or --verify was given. */
function needsCheck(facts: RunFacts): boolean {
  return facts.changed || facts.verifyGiven;
}

/**
 * Whether the reviewer reads the change. Every planned run's change is reviewed; a tier-1 change
 * only when neither the person nor the project checked it (a check the model proposed, or none),
 * which keeps the fast path fast where the project's own tests speak for it. A tier-0 task runs
 * what the person typed: there is no model's change to review.
 */
function reviewWanted(facts: RunFacts): boolean {
  if (!facts.changed || facts.route === "answer") return false;
  return facts.route === "plan" || facts.checkedBy === "model" || facts.checkedBy === undefined;
}

/** A round whose checks did not fail, and whose change (if reviewed) was accepted, ends here. */
function settled(facts: RunFacts): "completed" | "unverified" {
  // Nothing ran because nothing needed checking: the answer is the result.
  return facts.checks === "passed" || !needsCheck(facts) ? "completed" : "unverified";
}

/** The ending such a round has earned, once the Stop hooks (where there are any) have let it go. */
function ending(facts: RunFacts): Next {
  return facts.stopHook === "unasked" ? "stop_hook" : settled(facts);
}

/** After a round that did not end the run: revise, escalate, ask, or stop. */
function afterRound(facts: RunFacts): Next {
  if (facts.iteration >= facts.maxIterations) return "max_iterations";
  const revise = facts.analysed ? "planning" : "analysis";
  if (facts.stalled >= STALLED_LIMIT) return facts.canAsk ? "ask" : "stuck";
  if (facts.stalled > 0 && !facts.escalated && facts.canEscalate) return "escalate";
  return revise;
}

/** What an ending's headline says beyond the facts: the answer, why nothing checked, what is open. */
export interface ClosingDetails {
  answer: string;
  /** Why the single tool loop could not finish, when it could not. */
  failure: EndingReason | undefined;
  unchecked: string | undefined;
  pending: string[];
}

/** The headline and reason code of each ending the phases reach (the errors' are settle.ts's). */
export function closingOf(
  status: RunStatus,
  facts: RunFacts,
  details: ClosingDetails,
): { headline: string; reason: EndingReason } {
  switch (status) {
    case "completed":
      return facts.checks === "passed"
        ? { headline: "", reason: "checks_passed" }
        : { headline: details.answer, reason: "answered" };
    case "unverified":
      return {
        headline: `Not verified: ${details.unchecked ?? "no check ran"}. The change is kept; check it yourself, or give the check with --verify.`,
        reason: "no_check",
      };
    case "stuck":
      return {
        headline: `Stuck: ${STALLED_LIMIT} rounds in a row came no closer${facts.escalated ? ", the strong model included" : ""}.`,
        reason: "no_progress",
      };
    case "max_iterations":
      return {
        headline: `Stopped after ${facts.maxIterations} iterations without a verified result.`,
        reason: "iteration_cap",
      };
    default:
      return facts.workFailed
        ? { headline: details.pending.join("\n"), reason: details.failure ?? "work_failed" }
        : {
            headline: "The checks failed, and a task answered without a plan has no round to fix them in.",
            reason: "checks_failed",
          };
  }
}

/** The one transition function: where the run goes from `at`, given what it knows now. */
export function nextPhase(at: RunPhase, facts: RunFacts): Next {
  switch (at) {
    case "routing":
      return facts.route === "answer" ? "answer" : facts.route === "single" ? "single" : "analysis";
    case "single":
      if (facts.workFailed) return "failed";
      return needsCheck(facts) ? "validation" : ending(facts);
    case "answer":
      // A tier-0 file command refused or failed, or its postcondition does not hold: there is no
      // plan to try again with.
      if (facts.workFailed || facts.checks === "failed") return "failed";
      // Its postcondition held: that is its check, and only --verify, when given, is left to run.
      if (facts.checks === "passed" && !facts.verifyGiven) return ending(facts);
      return needsCheck(facts) ? "validation" : ending(facts);
    case "execution":
      return needsCheck(facts) ? "validation" : ending(facts);
    case "analysis":
      return "planning";
    case "planning":
      return "execution";
    case "validation":
      if (facts.checks === "failed") {
        // A tier-0 task has no plan to revise: the check's failure is its answer.
        if (facts.route === "answer") return "failed";
        return reviewWanted(facts) && !facts.failureSeen ? "review" : "progress";
      }
      return reviewWanted(facts) ? "review" : ending(facts);
    case "review":
      if (facts.review === "not_ready" || facts.checks === "failed") return "progress";
      return ending(facts);
    case "progress":
      return afterRound(facts);
    case "escalate":
      return facts.analysed ? "planning" : "analysis";
    case "ask":
      if (!facts.advised) return "stuck";
      return facts.analysed ? "planning" : "analysis";
    case "stop_hook":
      if (facts.stopHook === "go_on") {
        if (facts.iteration >= facts.maxIterations) return "max_iterations";
        return facts.analysed ? "planning" : "analysis";
      }
      // Come from an ending the round earned; said again, so that no way to completed skips a check.
      return facts.checks === "failed" || facts.review === "not_ready" ? "progress" : settled(facts);
    default: {
      const unknown: never = at;
      throw new Error(`no phase ${String(unknown)}`);
    }
  }
}
