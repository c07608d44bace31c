/** What the run loop knows at the end of an iteration, from which it decides the next move. */
export interface IterationFacts {
  /** The iteration just finished, counted from 1. */
  iteration: number;
  maxIterations: number;
  /** The checks: null when nothing could be checked, which does not hold the run back. */
  validationPassed: boolean | null;
  /** The reviewer's verdict; undefined when nothing changed, so there was nothing to review. */
  reviewReady: boolean | undefined;
  /** The same failure (or the same review issues) as at the end of the iteration before. */
  sameFailureAgain: boolean;
  /** The run already moved to the strong model. */
  escalated: boolean;
  /** A person is there to ask. */
  canAsk: boolean;
}

export type NextMove = "completed" | "revise" | "escalate" | "ask" | "stuck" | "max_iterations";

/**
 * The run loop's transition guards, in the order they apply: done when the checks pass and the
 * review is satisfied; out of iterations otherwise; and when the same failure comes back, first
 * the strong model, then the person, then stuck. Anything else is another round of revision.
 */
export function decide(facts: IterationFacts): NextMove {
  if (facts.validationPassed !== false && facts.reviewReady !== false) return "completed";
  if (facts.iteration >= facts.maxIterations) return "max_iterations";
  if (!facts.sameFailureAgain) return "revise";
  if (!facts.escalated) return "escalate";
  return facts.canAsk ? "ask" : "stuck";
}
