/**
 * The HTTP API's inputs and outputs as zod schemas: requests are validated with them and the
 * OpenAPI description (`/api/openapi.json`) is generated from them, so the two cannot drift.
 */

import { z } from "@hono/zod-openapi";
import { APPROVAL_MODES, configSchema, modelIdSchema } from "../config/schema.js";
import { todoItemSchema } from "../events/common.js";
import { stampedEventSchema } from "../events/events.js";
import { runResultSchema } from "../events/result.js";
import { APPROVAL_CHOICES, MODES, RUN_STATUSES } from "../events/types.js";
import { expectation } from "../platform/issues.js";
import { parseSince, SINCE_FORMS } from "../platform/since.js";
import { COST_GROUPS } from "../store/sessions.js";

/**
 * A session's status: running, waiting for a person (an approval or an answer, in this server),
 * cut off by a crash, or how its work ended.
 */
export const SESSION_STATUSES = ["running", "waiting", "interrupted", ...RUN_STATUSES] as const;

export const errorSchema = z
  .object({
    error: z.string().openapi({ example: "task: expected non-empty text (got nothing)" }),
    issues: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
  })
  .openapi("Error");

const totalsSchema = z
  .object({
    calls: z.number().int(),
    input_tokens: z.number().int(),
    output_tokens: z.number().int(),
    cached_input_tokens: z.number().int(),
    cache_write_tokens: z.number().int(),
    reasoning_tokens: z.number().int(),
    cost_usd: z.number().nullable().openapi({ description: "null when any call had no known price" }),
    known_cost_usd: z.number(),
    unknown_cost_calls: z.number().int(),
  })
  .openapi("CostTotals");

export const sessionSchema = z
  .object({
    id: z.string(),
    workspace: z.string(),
    task: z.string(),
    mode: z.enum(MODES),
    model: z.string(),
    status: z.enum(SESSION_STATUSES),
    created_at: z.string(),
    updated_at: z.string(),
    usage: totalsSchema,
    live: z.boolean().openapi({ description: "running in this server, so it can be answered and cancelled" }),
    waiting_for: z
      .array(
        z.object({
          request_id: z.string(),
          kind: z.enum(["approval", "question"]),
          summary: z.string().openapi({ description: "the call to approve, or the question" }),
          agent: z
            .string()
            .optional()
            .openapi({ description: "the sub-agent that asks; absent: the session's own" }),
        }),
      )
      .openapi({ description: "what a waiting session waits for, oldest first: answer it to let it go on" }),
  })
  .openapi("Session");

/** One event of the stream, each type with its own fields: the protocol's own schema (src/events). */
export const eventSchema = stampedEventSchema;

const timelineEntrySchema = z.object({
  seq: z.number().int(),
  ts: z.string(),
  event: z.string(),
  detail: z.string(),
});

export const sessionDetailSchema = z
  .object({
    session: sessionSchema,
    timeline: z.array(timelineEntrySchema),
    pending: z
      .array(eventSchema)
      .openapi({ description: "approval.requested and question.asked events still waiting for an answer" }),
    result: runResultSchema
      .nullable()
      .openapi({ description: "how its work last ended; null while none has" }),
    todos: z.array(todoItemSchema),
    costs_by_phase: z.array(totalsSchema.extend({ key: z.string().openapi({ description: "the phase" }) })),
  })
  .openapi("SessionDetail");

export const sessionRefSchema = z.object({
  id: z
    .string()
    .min(1)
    .openapi({
      param: { name: "id", in: "path" },
      description: "session id, or a unique start or end of it",
    }),
});

export const listQuerySchema = z.object({
  status: z.enum(SESSION_STATUSES).optional(),
  mode: z.enum(MODES).optional(),
  workspace: z.string().min(1).optional().openapi({ description: "only sessions run in this folder" }),
  q: z.string().optional().openapi({ description: "only sessions whose task contains this text" }),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});

export const startSchema = z
  .strictObject({
    mode: z.enum(MODES).openapi({ description: "do: one tool loop; run: to a verified finish; chat" }),
    task: z.string().trim().min(1).openapi({ description: "the task, or a chat's first message" }),
    context: z.string().max(100_000).optional().openapi({
      description:
        "what the model should know about the task apart from it (background, constraints); given to the model with the task, not shown as the task",
      example: "It's several versions behind, managed by straight.el",
    }),
    session_id: z
      .string()
      .regex(
        /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/,
        "expected letters, digits, ., _ and - (up to 128, starting with a letter or digit), such as upgrade-20250814",
      )
      .optional()
      .openapi({
        description: "the new session's id, when the caller chooses it; must not be taken (409 otherwise)",
        example: "upgrade-20250814",
      }),
    workspace: z
      .string()
      .min(1)
      .optional()
      .openapi({ description: "default: the folder the server started in; must be an allowed workspace" }),
    model: modelIdSchema.optional(),
    approval: z.enum(APPROVAL_MODES).optional().openapi({ description: "default: ask" }),
    max_iterations: z.number().int().positive().optional(),
    max_cost_usd: configSchema.shape.max_cost_usd,
    max_tokens: configSchema.shape.max_tokens,
    timeout_s: configSchema.shape.timeout_s,
    verify: z.string().min(1).optional(),
  })
  .openapi("StartSession");

export const startedSchema = z.object({ session: sessionSchema }).openapi("Started");

export const messageSchema = z.strictObject({ text: z.string().trim().min(1) }).openapi("ChatMessage");

export const requestRefSchema = sessionRefSchema.extend({
  request_id: z
    .string()
    .min(1)
    .openapi({ param: { name: "request_id", in: "path" } }),
});

export const approvalSchema = z
  .strictObject({
    choice: z.enum(APPROVAL_CHOICES),
    reason: z.string().optional().openapi({ description: "with deny: why, told to the model" }),
  })
  .openapi("ApprovalAnswer");

export const answerSchema = z
  .strictObject({ answer: z.string().nullable().openapi({ description: "null: no answer" }) })
  .openapi("QuestionAnswer");

export const acceptedSchema = z.object({ ok: z.literal(true) }).openapi("Accepted");

export const costsQuerySchema = z.object({
  by: z.enum(COST_GROUPS).default("day"),
  split: z.enum(COST_GROUPS).optional().openapi({ description: "a second grouping within each group" }),
  since: z
    .string()
    .optional()
    .superRefine((text, ctx) => {
      if (text !== undefined && !parseSince(text))
        ctx.addIssue({ code: "custom", message: expectation(SINCE_FORMS, text) });
    }),
  session: z.string().min(1).optional(),
});

export const costsSchema = z
  .object({
    by: z.enum(COST_GROUPS),
    split: z.enum(COST_GROUPS).nullable(),
    since: z.string().nullable(),
    groups: z.array(totalsSchema.extend({ key: z.string(), split: z.string().optional() })),
    total: totalsSchema,
  })
  .openapi("Costs");

export const checkpointsQuerySchema = z.object({
  workspace: z
    .string()
    .min(1)
    .optional()
    .openapi({ description: "default: the folder the server started in" }),
  session: z.string().min(1).optional(),
});

const checkpointSchema = z
  .object({
    id: z.string(),
    session: z.string(),
    step: z.string(),
    created_at: z.string(),
    files: z.array(z.object({ path: z.string(), existed: z.boolean() })),
  })
  .openapi("Checkpoint");

export const checkpointsSchema = z.object({ checkpoints: z.array(checkpointSchema) }).openapi("Checkpoints");

export const undoSchema = z
  .strictObject({
    workspace: z.string().min(1).optional(),
    checkpoint: z.string().min(1).optional().openapi({ description: "default: the latest" }),
    force: z.boolean().default(false).openapi({ description: "restore even files changed since" }),
  })
  .openapi("Undo");

export const undoneSchema = z
  .object({
    checkpoint: checkpointSchema,
    undone: z.array(checkpointSchema),
    files: z.array(z.object({ path: z.string(), action: z.enum(["restored", "deleted", "unchanged"]) })),
  })
  .openapi("Undone");

export const infoSchema = z
  .object({
    version: z.string(),
    workspaces: z.array(z.string()),
    cost_groups: z.array(z.enum(COST_GROUPS)),
    /** What a session's fields may hold, for a client to offer as choices. */
    modes: z.array(z.enum(MODES)),
    statuses: z.array(z.enum(SESSION_STATUSES)),
    approval_modes: z.array(z.enum(APPROVAL_MODES)),
  })
  .openapi("Info");

export type SessionView = z.infer<typeof sessionSchema>;
export type SessionDetail = z.infer<typeof sessionDetailSchema>;
export type StartRequest = z.input<typeof startSchema>;
export type CostsView = z.infer<typeof costsSchema>;
export type Info = z.infer<typeof infoSchema>;
