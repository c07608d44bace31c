/**
 * The one event stream (DESIGN.md "One event stream"). The loop emits these; the store appends
 * them; every renderer (text, JSON, stream-JSON, Ink, SSE, ACP) reads them and nothing else.
 * Field names are snake_case because stream-json prints them as they are: they are public API.
 */

export type Status = "thinking" | "running_tools" | "validating" | "reviewing" | "summarizing";

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

export type Phase = (typeof PHASES)[number];

export const MODES = ["do", "run", "chat"] as const;
export type Mode = (typeof MODES)[number];

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
export type RunStatus = (typeof RUN_STATUSES)[number];

/**
 * Why a session ended as it did, one code per cause (src/agent/phases.ts lists which statuses
 * each goes with): what a script or a batch decides on rather than the summary's words.
 */
export const ENDING_REASONS = [
  /** completed: the checks passed on the work as it stands. */
  "checks_passed",
  /** completed: nothing was changed and nothing was asked to be checked; the answer is the result. */
  "answered",
  /**
   * completed, in `cairn do` and chat only: the model finished a change that nothing was asked to
   * check (they check only with --verify; `cairn run` never ends so).
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
  /** budget_exceeded: `--max-cost` was spent. */
  "cost_cap",
  /** budget_exceeded: `--max-tokens` was spent. */
  "token_cap",
  /** budget_exceeded: `--timeout`, the wall-time cap. */
  "time_cap",
  /** cancelled: Ctrl-C, SIGTERM or SIGHUP, or an interrupt from a front end. */
  "interrupted",
] as const;
export type EndingReason = (typeof ENDING_REASONS)[number];

/**
 * Who says a command shows the work is right: the person (`verify`: `--verify`; `task`: named in
 * the task), the project (`project`: its scripts and conventions; `docs`: its README, CONTRIBUTING
 * or AGENTS.md; `ci`: its CI workflows), or only the model (`proposed`, when nothing else was found).
 */
export const CHECK_SOURCES = ["verify", "task", "project", "docs", "ci", "proposed"] as const;
export type CheckSource = (typeof CHECK_SOURCES)[number];

/** How sure cairn is that the task is done (the Efrit design's self-assessment), in every result. */
export interface Assessment {
  /** high: the person's or the project's checks passed; medium: only a check the model proposed; low: nothing passed. */
  confidence: "high" | "medium" | "low";
  /** The checks run on the work as it ended, and on whose word each counts as one. */
  verified_by: Array<{ command: string; source: CheckSource; passed: boolean }>;
  /** What no check covered. */
  not_verified: string[];
  /** cairn's own account of how sure it is, in a sentence or two. */
  self_assessment: string;
  /** What is left to do before the task is done: empty when it is. */
  remaining: string[];
}

/** What a call may do; `secret`: it reads a file that looks like a secret (docs/security.md). */
export type Permission = "read" | "write" | "exec" | "network" | "secret";

export interface TokenCounts {
  input_tokens: number;
  output_tokens: number;
  cached_input_tokens: number;
  cache_write_tokens: number;
  reasoning_tokens: number;
}

export interface UsageTotals extends TokenCounts {
  /** Null when any call in the total had no known price: unknown is never shown as 0. */
  cost_usd: number | null;
  calls: number;
}

export interface TodoItem {
  id: string;
  content: string;
  status: "pending" | "in_progress" | "completed";
  priority?: "high" | "medium" | "low";
}

export interface PlanStepEvent {
  id: string;
  title: string;
  category: string;
  files: string[];
  done_when: string;
}

export interface ValidationSummary {
  ran: boolean;
  passed: boolean | null;
  command?: string;
  reason?: string;
  output?: string;
}

/** Where a sub-agent or delegate stands: its line in the renderers, its ending in the log. */
export type AgentRunStatus = "running" | "done" | "failed" | "over_budget";

/** The name usage is booked under for the session's own agent; sub-agents go by theirs. */
export const MAIN_AGENT = "main";

export interface RunResult {
  session_id: string;
  status: RunStatus;
  reason: EndingReason;
  summary: string;
  iterations: number;
  files_changed: string[];
  validation: ValidationSummary | null;
  usage: TokenCounts & {
    by_phase: Partial<Record<Phase, UsageTotals>>;
    /** By agent name: `main` for the session's own, then each sub-agent and delegate by its name. */
    by_agent: Record<string, UsageTotals>;
  };
  cost_usd: number | null;
  /**
   * What every session recorded in this workspace has cost so far, this one included (the
   * calls of known price; ledit's persisted history of costs). Absent where no store records it.
   */
  workspace_cost_usd?: number;
  duration_ms: number;
  assessment: Assessment;
}

/**
 * What a tool call produced, for renderers and scripts: one shape per kind of result, told apart
 * by `kind` (stream-json prints it inside `tool.result` as `data`). A tool from elsewhere (MCP)
 * may report none.
 */
export type ToolData =
  | { kind: "file_read"; path: string; offset: number; lines: number; total_lines: number | null }
  /**
   * A file written, edited or appended to; `created` only from write_file; `strategy` (how old_string
   * matched) and `repairs` (what was fixed in the arguments first) only from edit_file.
   */
  | {
      kind: "file_change";
      path: string;
      diff: string;
      created?: boolean;
      strategy?: string;
      repairs?: string[];
    }
  | { kind: "file_deleted"; path: string }
  | { kind: "file_copied"; source: string; destination: string }
  | { kind: "file_moved"; source: string; destination: string }
  /** list_files and search_files. */
  | { kind: "listing"; files: string[]; truncated: boolean }
  | { kind: "tree"; lines: number; hidden: number; truncated: boolean }
  | {
      kind: "grep";
      hits: Array<{ path: string; line: number; text: string }>;
      capped: boolean;
      engine: "ripgrep" | "js";
    }
  | {
      kind: "workspace";
      root: string;
      git: { branch: string | null; upstream: string | null; files: number } | null;
      languages: Record<string, number>;
      tooling: Record<string, string>;
      top_level: string[];
    }
  | {
      kind: "command";
      exit_code: number | null;
      signal: string | null;
      timed_out: boolean;
      cancelled: boolean;
      duration_ms: number;
      output_bytes: number;
      output_truncated: boolean;
    }
  | {
      kind: "git_status";
      branch: string | null;
      upstream: string | null;
      ahead: number;
      behind: number;
      /** Porcelain letters: `index` staged, `worktree` not; `??` untracked; `from` the old path of a rename. */
      files: Array<{ path: string; index: string; worktree: string; from?: string }>;
    }
  | { kind: "git_diff"; staged: boolean; truncated?: boolean; bytes?: number }
  | { kind: "git_log"; commits: Array<{ hash: string; date: string; author: string; subject: string }> }
  /** git_stage_files: `git diff --cached --name-status` lines after staging. */
  | { kind: "git_staged"; staged: string[] }
  | { kind: "git_commit"; hash: string }
  | { kind: "todos"; todos: TodoItem[] }
  /** ask_user: `answer` is there when someone answered. */
  | { kind: "answer"; answered: boolean; answer?: string }
  /** consult: whether a stronger model was there to ask; the advice is the output. */
  | { kind: "advice"; available: boolean }
  /** read_json/_yaml/_ini: the parsed value, or `truncated` when it was too big to carry. */
  | { kind: "data_read"; path: string; value?: unknown; truncated?: boolean }
  /** write_json/_yaml/_ini. */
  | { kind: "data_written"; path: string; bytes: number; created: boolean }
  /** fetch_webpage: where the content came from (after redirects), and whether it was cut. */
  | { kind: "web_page"; url: string; status: number; content_type: string; chars: number; cut: boolean }
  /** web_search. */
  | { kind: "web_search"; backend: string; results: Array<{ title: string; url: string; snippet: string }> }
  /** A tool of an MCP server (directly or through call_mcp_tool), or a resource read; `images` it returned. */
  | { kind: "mcp"; server: string; tool?: string; uri?: string; images: number };

/** A file's text as a call would change it (its tool says so): `old_text` null when it writes the file whole. */
export interface ProposedChange {
  path: string;
  old_text: string | null;
  new_text: string;
}

/** Code a call evaluates outside any sandbox (emacs_eval), in its language (`emacs-lisp`). */
export interface EvaluatedCode {
  language: string;
  text: string;
}

/** How a person may answer an approval request. */
export const APPROVAL_CHOICES = ["once", "session", "workspace", "deny"] as const;
export type ApprovalChoice = (typeof APPROVAL_CHOICES)[number];

/** What an MCP server says of one of its tools (its `readOnlyHint`, `destructiveHint`, `openWorldHint`). */
export interface ToolAnnotations {
  read_only?: boolean;
  destructive?: boolean;
  open_world?: boolean;
}

/** What a person is asked to approve: one tool call, said so it can be judged. */
export interface ApprovalPromptEvent {
  tool: string;
  permission: Permission;
  /** One line a person can judge: the command, or the file and action. */
  summary: string;
  /** For a tool that runs a command line: the line, and the absolute folder it starts in. */
  command?: { text: string; cwd: string };
  /** For an edit or a write: the text it would put in, to judge before approving. */
  change?: ProposedChange;
  /** For a call that evaluates code in the editor (emacs_eval): the code, whole. */
  code?: EvaluatedCode;
  /** Why the command is dangerous. When there is a reason, "always" is not offered. */
  dangers: string[];
  /** The command would get the network, which the sandbox otherwise cuts. */
  network: boolean;
  /** What an "always" answer would allow from then on (`npm test`, `edit_file`). */
  always?: string[];
  /** What the tool's MCP server says of it; a hint from the server, not a guarantee. */
  annotations?: ToolAnnotations;
}

export type CairnEvent =
  | {
      type: "session.started";
      mode: Mode;
      task: string;
      /** What the caller gave the model besides the task (the HTTP API's `context`). */
      context?: string;
      model: string;
      /** The workspace the session is recorded under: for a batch's task, its original repository. */
      workspace: string;
      /** Where it actually worked, when that is not `workspace`: a batch's throwaway copy of it. */
      worked_in?: string;
    }
  | { type: "session.resumed"; after_seq: number; interrupted_calls: string[] }
  | { type: "status"; status: Status; detail?: string }
  | { type: "route"; tier: 0 | 1 | 2; decision: string; reason: string }
  | {
      type: "intent";
      summary: string;
      category: string;
      complexity: string;
      estimated_files: string[];
      requires_context: boolean;
    }
  | { type: "plan"; summary: string; steps?: PlanStepEvent[]; iteration?: number }
  | { type: "todos"; todos: TodoItem[] }
  | { type: "message.delta"; text: string }
  /** What the model thought before it answered or called tools, where its provider sends it: once per model call. */
  | { type: "reasoning"; text: string }
  | { type: "message"; text: string }
  | {
      type: "tool.call";
      call_id: string;
      tool: string;
      args: unknown;
      permission: Permission | null;
    }
  | {
      type: "tool.result";
      call_id: string;
      tool: string;
      ok: boolean;
      output: string;
      data?: ToolData;
      /** Workspace paths the call created, changed or deleted. */
      changed_files?: string[];
      duration_ms: number;
    }
  | {
      type: "usage";
      phase: Phase;
      model: string;
      input_tokens: number;
      output_tokens: number;
      cached_input_tokens: number;
      cache_write_tokens: number;
      reasoning_tokens: number;
      /** The provider reported no usage: the counts are estimated from the sizes sent and received. */
      estimated?: boolean;
      cost_usd: number | null;
      duration_ms: number;
      tokens_per_second: number | null;
    }
  | { type: "retry"; attempt: number; delay_ms: number; reason: string }
  | {
      type: "validation";
      ran: boolean;
      passed: boolean | null;
      summary: string;
      checks: Array<{
        name: string;
        command: string;
        passed: boolean;
        duration_ms: number;
        source: CheckSource;
      }>;
      reason?: string;
    }
  /**
   * Between the rounds of `cairn run`: whether the last round got the work closer to done than
   * the one before, and how many rounds in a row have not.
   */
  | {
      type: "progress";
      iteration: number;
      verdict: "closer" | "same" | "further";
      reason: string;
      stalled: number;
    }
  | {
      type: "repair";
      kind: "fixer" | "mutation";
      description: string;
      passed: boolean;
      kept: boolean;
    }
  | {
      type: "review";
      ready: boolean;
      quality: number;
      issues: Array<{ severity: string; file: string; description: string }>;
      suggestions: string[];
    }
  | { type: "escalation"; from: string; to: string; reason: string }
  | {
      type: "compaction";
      before_tokens: number;
      after_tokens: number;
      pruned_outputs: number;
      summarized_messages: number;
    }
  | {
      type: "approval.requested";
      request_id: string;
      /** The tool call waiting for the answer. */
      call_id: string;
      prompt: ApprovalPromptEvent;
      options: ApprovalChoice[];
    }
  | { type: "approval.resolved"; request_id: string; choice: ApprovalChoice; reason?: string }
  | { type: "question.asked"; request_id: string; question: string }
  | { type: "question.answered"; request_id: string; answer: string | null }
  | { type: "question"; question: string; answer: string | null }
  /**
   * An MCP server's tools arrived (`ready`, again after it announced a new list), or it failed to
   * start, crashed or timed out (`failed`, once; its tools are withdrawn and the session goes on).
   */
  | { type: "mcp.server"; server: string; status: "ready" | "failed"; tools: number; message?: string }
  | { type: "error"; message: string; fatal: boolean }
  /**
   * What the workspace's own files (`.cairn/config.yaml`, `.mcp.json`, agent files) ask for beyond
   * the person's settings, and whether it applied: at the start of a session whose workspace asks
   * for more. Untrusted, each setting was left out; `hint` says how to trust the folder.
   */
  | {
      type: "workspace.trust";
      /** The folder trust was decided for. */
      folder: string;
      trusted: boolean;
      /** How it came to be trusted: `--trust-workspace`, the prompt, `cairn trust`, the config's `trusted_folders`. */
      by?: "flag" | "prompt" | "stored" | "config";
      settings: Array<{ file: string; key: string; asks: string }>;
      hint?: string;
    }
  /**
   * A sub-agent or delegate started or ended. Emitted by the agent itself, so it carries the
   * agent's `agent` and `parent` ids like everything else it emits.
   */
  | {
      type: "agent.status";
      /** The agent's name: a built-in (`explore`), an agent file's name, or a target (`agent:codex`). */
      name: string;
      /** The model it runs on (cairn's own loop), or the program (an external agent). */
      model?: string;
      status: AgentRunStatus;
      /** The job it was given, first line. */
      task: string;
      /** Why it failed or stopped. */
      detail?: string;
      tool_calls?: number;
      files_changed?: string[];
      cost_usd?: number | null;
      duration_ms?: number;
    }
  | { type: "session.finished"; result: RunResult };

export type CairnEventType = CairnEvent["type"];

/** Which agent emitted an event: absent for the session's own agent. */
export interface AgentStamp {
  /** The sub-agent's id in this session: its name and a number, `explore#2`. */
  agent: string;
  /** The id of the agent that started it; `main` for the session's own agent. */
  parent: string;
}

/**
 * An event as it travels: stamped with its session, order and time by the bus, and with the
 * sub-agent that emitted it, when one did.
 */
export type StampedEvent = CairnEvent & { session_id: string; seq: number; ts: string } & Partial<AgentStamp>;

/** The agent name an event's usage is booked under: the part of its agent id before `#`. */
export function agentNameOf(event: Partial<AgentStamp>): string {
  if (!event.agent) return MAIN_AGENT;
  const hash = event.agent.lastIndexOf("#");
  return hash > 0 ? event.agent.slice(0, hash) : event.agent;
}

export type EventOf<T extends CairnEventType> = Extract<CairnEvent, { type: T }>;
