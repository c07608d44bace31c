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

/** How a session ends: docs/loop.md says what each means and which exit code it has. */
export const RUN_STATUSES = [
  "completed",
  "unverified",
  "failed",
  "stuck",
  "max_iterations",
  "budget_exceeded",
  "cancelled",
] as const;

/**
 * Why a session ended as it did, one code per cause (src/agent/phases.ts lists which statuses
 * each goes with): what a script or a batch decides on rather than the summary's words. An
 * `error` event that ends the work says it with the same code as the ending it leads to.
 */
export const ENDING_REASONS = [
  /** completed: the checks passed on the work as it stands. */
  "checks_passed",
  /** completed: nothing was changed and nothing was asked to be checked; the answer is the result. */
  "answered",
  /**
   * unverified, in `cairn do` and chat only: the model finished a change that nothing was asked
   * to check (they check with --verify, or the project's own check when the agent ran it after
   * its last change; `cairn run` looks for checks and never ends so).
   */
  "unchecked",
  /** unverified: files changed and no check could be found, proposed or run. */
  "no_check",
  /** failed: the checks failed and there was no round left to fix them in (`do --verify`, a tier-0 task). */
  "checks_failed",
  /** failed: the work needed approvals nobody could give. */
  "needs_approval",
  /** failed: a UserPromptSubmit hook of the config blocked the prompt before the model saw it. */
  "blocked_by_hook",
  /** failed: the tool calls allowed for the task were used up before it was done. */
  "tool_call_cap",
  /** failed: the model's last answer was cut at its output-token limit (`max_output_tokens`). */
  "output_cap",
  /** failed: the provider withheld the model's answer (its content filter). */
  "refused",
  /** failed: the work could not finish (the agent it was handed to failed or overspent). */
  "work_failed",
  /** failed: the model's provider failed for good (outage, rate limits, network). */
  "provider_error",
  /** failed: the model cannot be used as configured (no key, a rejected key, an unknown model). */
  "configuration",
  /** failed: the model's answers stayed unusable (a plan, a review, its tool calls). */
  "bad_model_output",
  /** failed: a bug in cairn; the summary says what. */
  "internal",
  /** stuck: the same failure came back and nothing (a stronger model, a person) got past it. */
  "no_progress",
  /** max_iterations: `--max-iterations` rounds went by. */
  "iteration_cap",
  /** budget_exceeded: `--max-cost` (or an agent's own cap) was spent. */
  "cost_cap",
  /** budget_exceeded: `--max-tokens` was spent. */
  "token_cap",
  /** budget_exceeded: `--timeout`, the wall-time cap. */
  "time_cap",
  /** cancelled: Ctrl-C, SIGTERM or SIGHUP, or an interrupt from a front end. */
  "interrupted",
] as const;

/**
 * Who says a command shows the work is right: the person (`verify`: `--verify`; `task`: named in
 * the task), the project (`project`: its scripts and conventions; `docs`: its README, CONTRIBUTING
 * or AGENTS.md; `ci`: its CI workflows; `agent`: one of those, exactly as cairn found it, which
 * the agent itself ran after its last change, and cairn saw pass), the file system (`file_system`:
 * a tier-0 file command's own postcondition, said in words where a command would be), or only the
 * model (`proposed`, when nothing else was found).
 */
export const CHECK_SOURCES = [
  "verify",
  "task",
  "project",
  "docs",
  "ci",
  "agent",
  "file_system",
  "proposed",
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
export const endingReasonSchema = z
  .enum(ENDING_REASONS)
  .meta({ id: "EndingReason", description: "why the work ended as it did, as a code" });
export const checkSourceSchema = z
  .enum(CHECK_SOURCES)
  .describe(
    "on whose word the command counts as a check: the person, the project (run by cairn or by the agent), the file system, or only the model",
  );
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

export const cutStringSchema = z
  .object({
    field: z
      .string()
      .describe("where it is in the event: `args.content`, `data.diff`, `prompt.change.new_text`"),
    bytes: z.number().int().describe("its whole length in UTF-8 bytes, as the tool got it"),
  })
  .meta({
    id: "CutString",
    description:
      "a string longer than 64 KiB that the event carries cut: its first and last 32 KiB around a marker",
  });

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

/** How sure cairn is that the task is done (the Efrit design's self-assessment), in every result. */
export const assessmentSchema = z
  .object({
    confidence: z
      .enum(["high", "medium", "low"])
      .describe(
        "high: the person's or the project's checks passed; medium: only a check the model proposed; low: nothing passed",
      ),
    verified_by: z
      .array(z.object({ command: z.string(), source: checkSourceSchema, passed: z.boolean() }))
      .describe("the checks run on the work as it ended"),
    not_verified: z.array(z.string()).describe("what no check covered"),
    self_assessment: z.string().describe("cairn's own account of how sure it is, in a sentence or two"),
    remaining: z.array(z.string()).describe("what is left to do before the task is done: empty when it is"),
  })
  .meta({ id: "Assessment" });
