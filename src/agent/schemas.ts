import { z } from "zod";

/** Structured outputs of the run loop (DESIGN.md "The loop"): what the model must return. */

export const COMPLEXITIES = ["trivial", "simple", "moderate", "complex"] as const;
export const CATEGORIES = [
  "question",
  "read",
  "fix",
  "feature",
  "refactor",
  "test",
  "docs",
  "config",
  "other",
] as const;

export const classificationSchema = z.object({
  category: z.enum(CATEGORIES).describe("what kind of task this is; question/read change nothing"),
  complexity: z.enum(COMPLEXITIES),
  needs_tools: z.boolean().describe("false when it can be answered from general knowledge alone"),
  confidence: z.number().min(0).max(1),
});
export type Classification = z.infer<typeof classificationSchema>;

export const intentSchema = z.object({
  category: z.enum(CATEGORIES),
  complexity: z.enum(COMPLEXITIES),
  estimated_files: z.array(z.string()).describe("workspace paths likely to be read or changed"),
  requires_context: z.boolean().describe("true when more of the code must be read before planning"),
  summary: z.string().describe("the task restated in one sentence"),
});
export type Intent = z.infer<typeof intentSchema>;

export const STEP_CATEGORIES = [
  "analysis",
  "generate",
  "modify",
  "file_op",
  "command",
  "test",
  "docs",
  "research",
] as const;

export const planStepSchema = z.object({
  id: z.string().min(1),
  title: z.string().min(1),
  category: z.enum(STEP_CATEGORIES),
  files: z.array(z.string()).default([]),
  done_when: z.string().min(1).describe("how to tell the step is finished"),
});
export type PlanStep = z.infer<typeof planStepSchema>;

export const planSchema = z.object({
  summary: z.string().min(1).describe("the plan in one sentence, for the user"),
  steps: z.array(planStepSchema),
});
export type Plan = z.infer<typeof planSchema>;

export const reviewSchema = z.object({
  ready: z.boolean().describe("true when the change does what the task asked and is safe to keep"),
  quality: z.number().min(0).max(10),
  issues: z
    .array(
      z.object({
        severity: z.enum(["critical", "major", "minor"]),
        file: z.string().default(""),
        description: z.string().min(1),
      }),
    )
    .default([]),
  suggestions: z.array(z.string()).default([]),
});
export type Review = z.infer<typeof reviewSchema>;
