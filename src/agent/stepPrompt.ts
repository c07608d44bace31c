import type { PlanStep } from "./schemas.js";

/**
 * What each category of step asks for (the Rust seed's Executor builds its prompt from the
 * step's category): one short sentence, sent with every step of that kind.
 */
export const STEP_INSTRUCTIONS: Record<PlanStep["category"], string> = {
  analysis:
    "Read and search only what this step needs; change no files. Reply with what you found, citing paths and lines.",
  generate:
    "Create the new code or files the step names, in the style of the code around them; leave other files alone.",
  modify:
    "Read the code you change first, then make the smallest edits that do the step; keep everything else as it is.",
  file_op:
    "Move, copy, rename or delete with the file tools, not shell commands; check each path before you act.",
  command: "Run the commands the step needs and report what they printed and how they exited.",
  test: "Write or change the tests the step names to check the behaviour asked for, run them and report the result.",
  docs: "Change only documentation (README, docs, comments), and make it say what the code really does.",
  research:
    "Find the answer in the code, its docs or the web where allowed; change no files. Reply with it and its sources.",
};

/** What a step of this category is told to do, once per conversation. */
export function stepInstruction(category: PlanStep["category"]): string {
  return `This is a ${category} step. ${STEP_INSTRUCTIONS[category]}`;
}

/**
 * The prompt of one step of a plan: where it stands, what it asks, and how to tell it is done.
 * `instructed` is whether the conversation already holds what its category is told: the model
 * has it, and every request would carry it again.
 */
export function stepBrief(
  step: PlanStep,
  position: { index: number; total: number },
  context: string,
  instructed = false,
): string {
  return [
    `Step ${step.id} of the plan (${position.index + 1}/${position.total}): ${step.title}`,
    step.files.length ? `Files: ${step.files.join(", ")}` : "",
    `Done when: ${step.done_when}`,
    context,
    instructed ? "" : stepInstruction(step.category),
    "Carry out this step with the tools, then reply briefly with what you did.",
  ]
    .filter(Boolean)
    .join("\n");
}
