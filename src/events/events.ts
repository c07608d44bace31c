/**
 * Every event a session emits, each once, as a zod schema (DESIGN.md "One event stream"). The
 * loop emits them; the store appends them; every front end (text, JSON, stream-JSON, the terminal
 * UI, SSE and the dashboard, ACP, `mcp serve`, batch) reads them and nothing else.
 *
 * Adding an event is one entry in `EVENTS` below: its type is then in `CairnEvent`, in the JSON
 * Schema `cairn schema events` prints and in the OpenAPI document, and the compiler points at
 * every front end whose switch must decide how to show it (docs/development.md, "Adding an event").
 */
import { z } from "zod";
import {
  agentRunStatusSchema,
  approvalChoiceSchema,
  approvalPromptSchema,
  checkSourceSchema,
  cutStringSchema,
  endingReasonSchema,
  modeSchema,
  permissionSchema,
  phaseSchema,
  planStepSchema,
  statusSchema,
  todoItemSchema,
  toolKindSchema,
} from "./common.js";
import { resultLineSchema, runResultSchema } from "./result.js";
import { toolDataSchema } from "./toolData.js";

const int = () => z.number().int();

/** Where an event names the strings it carries cut (src/events/cap.ts); the tool got them whole. */
const cut = (field: string) =>
  z
    .array(cutStringSchema)
    .optional()
    .describe(`the strings of \`${field}\` this event carries cut; absent when none was`);

/** One event: its type, its fields, and what it means (the JSON Schema's description). */
const event = <T extends string, S extends z.ZodRawShape>(type: T, description: string, shape: S) =>
  z.object({ type: z.literal(type), ...shape }).describe(description);

export const EVENTS = [
  event("session.started", "the session's first event: what it was asked and where", {
    mode: modeSchema,
    task: z.string().describe("the task, or a chat's first message"),
    context: z
      .string()
      .optional()
      .describe("what the caller gave the model besides the task (the HTTP API's `context`)"),
    model: z.string(),
    workspace: z
      .string()
      .describe("the workspace it is recorded under: for a batch's task, its original repository"),
    worked_in: z
      .string()
      .optional()
      .describe("where it actually worked, when not `workspace`: a batch's throwaway copy"),
  }),
  event("session.resumed", "an interrupted session picked up again", {
    after_seq: int(),
    interrupted_calls: z.array(z.string()).describe("tools whose calls the interruption cut off"),
  }),
  event("turn.started", "a piece of work began: a do or run task, a chat message, a `!command`", {
    turn: int().positive().describe("its number in the session, from 1"),
    mode: z.union([modeSchema, z.literal("shell")]),
    input: z.string().describe("what the person gave: the task, the message, the command"),
  }),
  event("turn.finished", "the piece of work ended, with its result", {
    turn: int().positive(),
    result: runResultSchema,
  }),
  event("status", "what the agent does now", { status: statusSchema, detail: z.string().optional() }),
  event("route", "how the task was routed: tier 0 patterns, tier 1 a cheap model, tier 2 a full plan", {
    tier: z.union([z.literal(0), z.literal(1), z.literal(2)]),
    decision: z.string(),
    reason: z.string(),
  }),
  event("intent", "what the task was understood to be", {
    summary: z.string(),
    category: z.string(),
    complexity: z.string(),
    estimated_files: z.array(z.string()),
    requires_context: z.boolean(),
  }),
  event("plan", "the plan: a one-sentence summary, and steps in `cairn run`", {
    summary: z.string(),
    steps: z.array(planStepSchema).optional(),
    iteration: int().optional(),
  }),
  event("todos", "the TODO list as it is now", { todos: z.array(todoItemSchema) }),
  event("message.delta", "a piece of the answer as it streams", { text: z.string() }),
  event("reasoning", "what the model thought before it answered, where its provider sends it", {
    text: z.string(),
  }),
  event("message", "the model's whole answer (Markdown)", { text: z.string() }),
  event("tool.call", "a tool call starts", {
    call_id: z.string(),
    tool: z.string(),
    kind: toolKindSchema.describe(
      "what the tool is: read, edit, delete, move, search, execute, fetch, think, other",
    ),
    title: z.string().describe("the call in a line a person reads: the tool and what it acts on"),
    args: z.unknown(),
    permission: permissionSchema
      .nullable()
      .describe("null for a call that cannot run (no such tool, bad arguments)"),
    paths: z
      .array(z.string())
      .optional()
      .describe("the workspace paths the call reads or writes, as its tool says; absent when it cannot say"),
    cut: cut("args"),
  }),
  event("tool.result", "a tool call ended", {
    call_id: z.string(),
    tool: z.string(),
    ok: z.boolean(),
    output: z.string().describe("what the model was told, cut in the middle when long"),
    data: toolDataSchema.optional(),
    changed_files: z.array(z.string()).optional().describe("workspace paths it created, changed or deleted"),
    duration_ms: z.number(),
    cut: cut("data"),
  }),
  event("usage", "one model call's tokens, time and dollars", {
    phase: phaseSchema,
    model: z.string(),
    input_tokens: int(),
    output_tokens: int(),
    cached_input_tokens: int(),
    cache_write_tokens: int(),
    reasoning_tokens: int(),
    estimated: z
      .boolean()
      .optional()
      .describe("the provider reported no usage: the counts are estimated from the sizes sent and received"),
    context_tokens: int()
      .optional()
      .describe(
        "the context the request asked the server to run it in (Ollama's num_ctx); absent where none is sent",
      ),
    cut_to_fit: z
      .boolean()
      .optional()
      .describe(
        "the request did not fit the model's context window whole: older messages were left out, or the server cuts the prompt",
      ),
    cost_usd: z.number().nullable().describe("null when the model's price is unknown"),
    duration_ms: z.number(),
    tokens_per_second: z.number().nullable(),
  }),
  event("retry", "a model call failed and is tried again", {
    attempt: int(),
    delay_ms: z.number(),
    reason: z.string(),
  }),
  event("validation", "the project's checks ran (or could not)", {
    ran: z.boolean(),
    passed: z.boolean().nullable(),
    summary: z.string(),
    checks: z.array(
      z.object({
        name: z.string(),
        command: z.string(),
        passed: z.boolean(),
        duration_ms: z.number(),
        source: checkSourceSchema,
      }),
    ),
    reason: z.string().optional(),
  }),
  event("progress", "between the rounds of `cairn run`: whether the last round got the work closer to done", {
    iteration: int(),
    verdict: z.enum(["closer", "same", "further"]),
    reason: z.string(),
    stalled: int().describe("how many rounds in a row have not got closer"),
  }),
  event("repair", "a cheap local repair was tried before another model round", {
    kind: z.enum(["fixer", "mutation"]),
    description: z.string(),
    passed: z.boolean(),
    kept: z.boolean(),
  }),
  event("review", "the reviewer's verdict on the change", {
    ready: z.boolean(),
    quality: z.number(),
    issues: z.array(z.object({ severity: z.string(), file: z.string(), description: z.string() })),
    suggestions: z.array(z.string()),
  }),
  event("escalation", "another model takes over", { from: z.string(), to: z.string(), reason: z.string() }),
  event("compaction", "the conversation was shrunk to fit the context window", {
    before_tokens: int(),
    after_tokens: int(),
    pruned_outputs: int(),
    summarized_messages: int(),
  }),
  event("approval.requested", "a tool call waits for a person's approval (answer with the `approve` op)", {
    request_id: z.string(),
    call_id: z.string().describe("the tool call waiting for the answer"),
    prompt: approvalPromptSchema,
    options: z.array(approvalChoiceSchema),
    cut: cut("prompt"),
  }),
  event("approval.resolved", "an approval was answered", {
    request_id: z.string(),
    choice: approvalChoiceSchema,
    reason: z.string().optional(),
  }),
  event("question.asked", "the agent asks the person (answer with the `answer` op)", {
    request_id: z.string(),
    question: z.string(),
  }),
  event("question.answered", "a question was answered, or dismissed (null)", {
    request_id: z.string(),
    answer: z.string().nullable(),
  }),
  event(
    "mcp.server",
    "an MCP server's tools arrived (`ready`, again after a new list), or it failed (`failed`: its tools are withdrawn)",
    {
      server: z.string(),
      status: z.enum(["ready", "failed"]),
      tools: int(),
      message: z.string().optional(),
    },
  ),
  event("error", "something went wrong; `fatal` when it ended the work", {
    message: z.string(),
    fatal: z.boolean(),
    reason: endingReasonSchema.optional(),
  }),
  event(
    "workspace.trust",
    "what the workspace's own files (.cairn/config.yaml, .mcp.json, agent files) ask for beyond the person's settings, and whether it applied; untrusted, each setting was left out",
    {
      folder: z.string().describe("the folder trust was decided for"),
      trusted: z.boolean(),
      by: z
        .enum(["flag", "prompt", "stored", "config"])
        .optional()
        .describe(
          "how it came to be trusted: --trust-workspace, the prompt, cairn trust, the config's trusted_folders",
        ),
      settings: z.array(z.object({ file: z.string(), key: z.string(), asks: z.string() })),
      hint: z.string().optional().describe("how to trust the folder"),
    },
  ),
  event("agent.status", "a sub-agent or delegate started or ended (emitted by it, so stamped with its id)", {
    name: z
      .string()
      .describe("the agent's name: a built-in (`explore`), an agent file's, or a target (`agent:codex`)"),
    model: z.string().optional().describe("the model it runs on, or the program of an external agent"),
    status: agentRunStatusSchema,
    task: z.string().describe("the job it was given, first line"),
    detail: z.string().optional().describe("why it failed or stopped"),
    tool_calls: int().optional(),
    files_changed: z.array(z.string()).optional(),
    cost_usd: z.number().nullable().optional(),
    duration_ms: z.number().optional(),
  }),
  event("session.finished", "the session ended: a do or run after its task, a chat when it is closed", {
    result: runResultSchema,
  }),
] as const;

export const eventSchema = z.discriminatedUnion("type", EVENTS);

/** What the bus adds to every event: its session, order and time, and the sub-agent that emitted it. */
export const stampShape = {
  session_id: z.string(),
  seq: int().positive(),
  ts: z.string().describe("ISO 8601"),
  agent: z
    .string()
    .optional()
    .describe("the sub-agent that emitted it (`explore#2`); absent for the session's own"),
  parent: z
    .string()
    .optional()
    .describe("the id of the agent that started that sub-agent; `main` for the session's own"),
};

/** `tool.call` → `ToolCallEvent`: the name each event has in the JSON Schema and the OpenAPI document. */
export function schemaName(type: string): string {
  return `${type.replace(/(^|[._])(\w)/g, (_, __, c: string) => c.toUpperCase())}Event`;
}

type Stamped<T> =
  T extends z.ZodObject<infer Shape, infer Config>
    ? z.ZodObject<z.core.util.Extend<Shape, typeof stampShape>, Config>
    : never;
type StampedMember = Stamped<(typeof EVENTS)[number]>;

/** Every event as it travels and is stored, stamped: what stream-json prints, one per line. */
export const stampedEventSchema = z
  .discriminatedUnion(
    "type",
    EVENTS.map((member) =>
      member
        .extend(stampShape)
        .meta({ id: schemaName(member.shape.type.value), description: member.description }),
    ) as unknown as [StampedMember, ...StampedMember[]],
  )
  .meta({ id: "Event", description: "one event of a session, as stream-json prints it and SSE sends it" });

/** One line of `--output-format stream-json`: an event, or the result line that ends the stream. */
export const streamLineSchema = z.union([stampedEventSchema, resultLineSchema]);
