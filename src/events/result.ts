/**
 * The run result: what `--output-format json` prints, what stream-json's last line carries, what
 * `turn.finished` and `session.finished` hold and what `cairn mcp serve` answers with.
 */
import { z } from "zod";
import {
  assessmentSchema,
  endingReasonSchema,
  PHASES,
  runStatusSchema,
  tokenCountsSchema,
  usageTotalsSchema,
  validationSummarySchema,
} from "./common.js";

export const runResultSchema = z
  .object({
    session_id: z.string(),
    status: runStatusSchema,
    reason: endingReasonSchema.describe("why it ended so: which check, cap or cause (docs/loop.md)"),
    summary: z.string().describe("the final answer or report, Markdown"),
    iterations: z.number().int().nonnegative(),
    files_changed: z.array(z.string()).describe("workspace paths created, changed or deleted"),
    validation: validationSummarySchema.nullable(),
    usage: tokenCountsSchema.extend({
      by_phase: z.object(
        Object.fromEntries(PHASES.map((phase) => [phase, usageTotalsSchema.optional()])) as Record<
          (typeof PHASES)[number],
          z.ZodOptional<typeof usageTotalsSchema>
        >,
      ),
      by_agent: z
        .record(z.string(), usageTotalsSchema)
        .describe("by agent name: `main` for the session's own, then each sub-agent and delegate"),
    }),
    cost_usd: z.number().nullable().describe("null when a call had no known price: unknown is never 0"),
    workspace_cost_usd: z
      .number()
      .optional()
      .describe(
        "what every session recorded in this workspace has cost so far, this one included; absent where no store records it",
      ),
    duration_ms: z.number().nonnegative(),
    assessment: assessmentSchema,
  })
  .meta({ id: "RunResult", description: "how a task, a chat message or a session ended" });

/** stream-json's last line: the result, marked as such. */
export const resultLineSchema = runResultSchema
  .extend({ type: z.literal("result") })
  .meta({ id: "ResultLine", description: "stream-json's last line: the run result" });
