/**
 * The words and small shapes the events, the ops and the run result share: zod schemas, from
 * which both the TypeScript types (types.ts) and the published JSON Schema (jsonSchema.ts) come.
 * Field names are snake_case because stream-json prints them as they are: they are public API.
 */
import { z } from "zod";

/** What the agent is doing now: the status line of every front end. */
export const STATUSES = ["thinking", "running_tools", "validating", "reviewing", "summarizing"] as const;

/** Where a model call's tokens are booked: the loop's phases, in the order they run. */
export const PHASES = [
  "routing",
  "analysis",
  "planning",
  "execution",
  "validation",
  "review",
  "progress",
  "summary",
  "compaction",
] as const;

/** do: one tool loop; run: to a verified finish; chat: a conversation of do turns over one history. */
export const MODES = ["do", "run", "chat"] as const;

export const RUN_STATUSES = [
  "completed",
  "failed",
  "stuck",
  "max_iterations",
  "budget_exceeded",
  "cancelled",
] as const;

/**
 * Why an ending or an error came about, for a program to act on without reading the words:
 * which cap was reached, who stopped the work, what failed.
 */
export const REASON_CODES = [
  /** `--max-cost` (or an agent's own cap) was spent. */
  "cost_cap",
  /** `--max-tokens` was spent. */
  "token_cap",
  /** `--timeout`: the wall-time cap. */
  "time_cap",
  /** `--max-iterations` rounds of plan, edit and check went by. */
  "iteration_cap",
  /** The tool calls allowed for one step or message were used up. */
  "tool_call_cap",
  /** The model's answer was cut at its output-token limit. */
  "output_cap",
  /** The provider withheld the answer (its content filter). */
  "refused",
  /** A person or a client stopped the work. */
  "interrupted",
  /** The model provider failed (after its retries). */
  "provider_error",
  /** A key, a model id or a setting is wrong: fix the configuration. */
  "configuration",
  /** The model's structured answer (a plan, a review) stayed unusable. */
  "bad_model_output",
  /** The work needed calls only a person could approve, and nobody could. */
  "needs_approval",
  /** The checks failed. */
  "checks_failed",
  /** The same problem came back and nobody could say how to go on. */
  "no_progress",
  /** A bug in cairn: the message says what. */
  "internal",
] as const;

/** What a call may do; `secret`: it reads a file that looks like a secret (docs/security.md). */
export const PERMISSIONS = ["read", "write", "exec", "network", "secret"] as const;

/** What a tool is, for a front end's icon and grouping (gemini-cli's `Kind`, ACP's tool kinds). */
export const TOOL_KINDS = [
  "read",
  "edit",
  "delete",
  "move",
  "search",
  "execute",
  "fetch",
  "think",
  "other",
] as const;

/** When cairn asks before a call (docs/security.md): the config's `approval`, `--approval`. */
export const APPROVAL_MODES = ["ask", "auto-edit", "auto", "read-only"] as const;

/** How a person may answer an approval request. */
export const APPROVAL_CHOICES = ["once", "session", "workspace", "deny"] as const;

/** Where a sub-agent or delegate stands: its line in the renderers, its ending in the log. */
export const AGENT_RUN_STATUSES = ["running", "done", "failed", "over_budget"] as const;

/** The name usage is booked under for the session's own agent; sub-agents go by theirs. */
export const MAIN_AGENT = "main";

export const statusSchema = z.enum(STATUSES);
export const phaseSchema = z.enum(PHASES);
export const modeSchema = z.enum(MODES);
export const runStatusSchema = z.enum(RUN_STATUSES);
export const reasonSchema = z.enum(REASON_CODES).meta({ id: "Reason", description: "why, as a code" });
export const permissionSchema = z.enum(PERMISSIONS);
export const toolKindSchema = z.enum(TOOL_KINDS);
export const approvalChoiceSchema = z.enum(APPROVAL_CHOICES);
export const agentRunStatusSchema = z.enum(AGENT_RUN_STATUSES);

const count = () => z.number().int().nonnegative();

export const tokenCountsSchema = z.object({
  input_tokens: count(),
  output_tokens: count(),
  cached_input_tokens: count(),
  cache_write_tokens: count(),
  reasoning_tokens: count(),
});

export const usageTotalsSchema = tokenCountsSchema
  .extend({
    cost_usd: z.number().nullable().describe("null when any call in the total had no known price"),
    calls: count(),
  })
  .meta({ id: "UsageTotals" });

export const todoItemSchema = z
  .object({
    id: z.string(),
    content: z.string(),
    status: z.enum(["pending", "in_progress", "completed"]),
    priority: z.enum(["high", "medium", "low"]).optional(),
  })
  .meta({ id: "TodoItem" });

export const planStepSchema = z.object({
  id: z.string(),
  title: z.string(),
  category: z.string(),
  files: z.array(z.string()),
  done_when: z.string(),
});

export const validationSummarySchema = z
  .object({
    ran: z.boolean(),
    passed: z.boolean().nullable(),
    command: z.string().optional(),
    reason: z.string().optional(),
    output: z.string().optional(),
  })
  .meta({ id: "ValidationSummary" });

export const proposedChangeSchema = z
  .object({
    path: z.string(),
    old_text: z.string().nullable().describe("null when the call writes the file whole"),
    new_text: z.string(),
  })
  .describe("a file's text as a call would change it");

export const evaluatedCodeSchema = z
  .object({ language: z.string().describe("`emacs-lisp`"), text: z.string() })
  .describe("code a call evaluates outside any sandbox (emacs_eval), in its language");

export const toolAnnotationsSchema = z
  .object({
    read_only: z.boolean().optional(),
    destructive: z.boolean().optional(),
    open_world: z.boolean().optional(),
  })
  .describe("what an MCP server says of one of its tools: a hint, not a guarantee");

/** What a person is asked to approve: one tool call, said so it can be judged. */
export const approvalPromptSchema = z.object({
  tool: z.string(),
  permission: permissionSchema,
  summary: z.string().describe("one line a person can judge: the command, or the file and action"),
  command: z
    .object({ text: z.string(), cwd: z.string() })
    .optional()
    .describe("for a tool that runs a command line: the line, and the absolute folder it starts in"),
  change: proposedChangeSchema.optional().describe("for an edit or a write: the text it would put in"),
  code: evaluatedCodeSchema
    .optional()
    .describe("for a call that evaluates code in the editor (emacs_eval): the code, whole"),
  dangers: z
    .array(z.string())
    .describe('why the command is dangerous; with a reason, "always" is not offered'),
  network: z.boolean().describe("the command would get the network, which the sandbox otherwise cuts"),
  always: z
    .array(z.string())
    .optional()
    .describe('what an "always" answer would allow from then on (`npm test`, `edit_file`)'),
  annotations: toolAnnotationsSchema.optional(),
});
