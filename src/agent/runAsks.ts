import type { ModelHandle } from "./agentContext.js";
import { gatherFacts, renderFacts } from "./analysis.js";
import type { IterationContext } from "./iteration.js";
import {
  type Classification,
  classificationSchema,
  type Intent,
  intentSchema,
  type Plan,
  planSchema,
  type Review,
  reviewSchema,
} from "./schemas.js";
import { askStructured, phaseInstructions } from "./structured.js";
import type { Turn } from "./turn.js";

/**
 * The questions `cairn run` puts to a model for an answer of a set shape (a classification, an
 * intent, a plan, a review): each is asked through `askStructured`, its answer checked against its
 * schema up to `attempts` times, and what came of it said on the bus. The run loop (runTask.ts)
 * decides when to ask which, and what the answer changes.
 */

/** Tier 2's routing question, to the cheap model: how hard and of what kind the task is. */
export async function classifyTask(turn: Turn, task: string, attempts: number): Promise<Classification> {
  const cheap = await turn.session.modelFor("cheap");
  return askStructured(turn, {
    phase: "routing",
    model: cheap,
    name: "classification",
    instructions: phaseInstructions("classify"),
    prompt: task,
    schema: classificationSchema,
    attempts,
  });
}

/** What the task means, from the facts gathered in the workspace. */
export async function analyseTask(
  turn: Turn,
  model: ModelHandle,
  task: string,
  attempts: number,
): Promise<Intent> {
  const facts = await gatherFacts(turn, task);
  const intent = await askStructured(turn, {
    phase: "analysis",
    model,
    name: "intent",
    instructions: phaseInstructions("analyse"),
    prompt: `# Task\n${task}\n\n${renderFacts(facts)}`,
    schema: intentSchema,
    attempts,
  });
  turn.session.bus.emit({
    type: "intent",
    summary: intent.summary,
    category: intent.category,
    complexity: intent.complexity,
    estimated_files: intent.estimated_files,
    requires_context: intent.requires_context,
  });
  return intent;
}

export interface PlanRequest {
  model: ModelHandle;
  task: string;
  intent: Intent;
  /** What the rounds so far did and left pending. */
  context: IterationContext;
  /** The round this plan is for: past the first, a plan is a revision. */
  iteration: number;
  attempts: number;
}

/** The steps of a round: the first plan, or a revision that fixes what is pending. */
export async function planRound(turn: Turn, request: PlanRequest): Promise<Plan> {
  const { intent, iteration } = request;
  const made = await askStructured(turn, {
    phase: "planning",
    model: request.model,
    name: "plan",
    instructions: phaseInstructions("plan"),
    prompt: [
      `# Task\n${request.task}`,
      `# Analysis\n${intent.summary}\nCategory: ${intent.category}; complexity: ${intent.complexity}; likely files: ${intent.estimated_files.join(", ") || "unknown"}`,
      request.context.render(),
      // Last, so the instructions above stay the same for every plan request and stay cached.
      iteration > 1
        ? "This is a revision: plan only what fixes the pending issues, changing the files already made."
        : "",
    ]
      .filter(Boolean)
      .join("\n\n"),
    schema: planSchema,
    attempts: request.attempts,
    check: (value) => (value.steps.length === 0 ? "the plan has no steps" : undefined),
  });
  turn.session.bus.emit({ type: "plan", summary: made.summary, steps: made.steps, iteration });
  return made;
}

export interface ReviewRequest {
  task: string;
  /** The run's diff so far. */
  diff: string;
  /** The last validation's summary, if one ran. */
  validation: string | undefined;
  attempts: number;
}

/** The review model's reading of the round's change: ready, or the issues it found. */
export async function reviewRound(turn: Turn, request: ReviewRequest): Promise<Review> {
  const { session } = turn;
  session.bus.emit({ type: "status", status: "reviewing" });
  const reviewer = await session.modelFor("review");
  const answer = await askStructured(turn, {
    phase: "review",
    model: reviewer,
    name: "review",
    instructions: phaseInstructions("review"),
    prompt: [
      `# Task\n${request.task}`,
      `# Diff of the run\n${request.diff || "(no changes)"}`,
      `# Validation\n${request.validation ?? "not run"}`,
    ].join("\n\n"),
    schema: reviewSchema,
    attempts: request.attempts,
  });
  session.bus.emit({ type: "review", ...answer });
  return answer;
}
