import type { z } from "zod";
import type {
  AgentRunStatus,
  EvaluatedCode,
  Permission,
  ProposedChange,
  ToolAnnotations,
  ToolData,
  ToolKind,
} from "../events/types.js";
import type { ProcessHandle, SpawnOptions } from "../platform/processes.js";
import type { Sandbox, SessionTmpDir, WrappedCommand } from "../safety/sandbox.js";
import type { SandboxLimits } from "../safety/sandboxLimits.js";
import type { Masks } from "../safety/sandboxMasks.js";
import type { SecretFiles } from "../safety/secretFiles.js";
import type { EditorFiles, ReadTracker } from "./fileText.js";

/** An image a tool returns (an MCP tool's screenshot), base64-encoded. */
export interface ToolImage {
  data: string;
  mediaType: string;
}

/** What a tool hands back: text for the model, structured data for events and renderers. */
export interface ToolOutput {
  text: string;
  data?: ToolData;
  /** Workspace-relative paths this call created, changed or deleted: the run's files_changed. */
  changedFiles?: string[];
  /**
   * Sent to a model that takes images in tool results; `text` describes each, for the others
   * and for the event stream.
   */
  images?: ToolImage[];
}

export interface ToolContext {
  /** Real (symlink-resolved) absolute path of the workspace root. */
  workspace: string;
  /** Further real roots file tools may touch (config `workspace.extra_roots`). */
  extraRoots: string[];
  signal: AbortSignal;
  /** The step this call belongs to: file changes are checkpointed under it, so undo goes back a step at a time. */
  step: string;
  /** Default and ceiling for run_command's timeout. */
  commandTimeoutMs: number;
  /** Asks the person; undefined when nobody can answer (headless). */
  ask?: (question: string) => Promise<string | undefined>;
  /** Asks the strong model a question mid-step. */
  consult?: (question: string) => Promise<string>;
  /** Publishes the TODO list (todo_write). */
  setTodos?: (todos: TodoInput[]) => void;
  /** How run_command confines commands; without it they run as they are. */
  sandbox?: CommandSandbox;
  /** What the file tools last saw of each file, so that none is edited blindly after a change. */
  reads?: ReadTracker;
  /** Hands a job to a sub-agent or another coding agent and waits for its answer (explore_codebase, task). */
  runAgent?: (request: AgentRequest) => Promise<AgentOutcome>;
  /**
   * The environment of what the model runs (commands, git): cairn's own without its secrets
   * (safety/environment.ts). Absent, it is made from cairn's environment by the default policy.
   */
  env?: Record<string, string>;
  /** Which files look like secrets: grep, the listings and git_diff leave them out unless allowed. */
  secrets?: SecretFiles;
  /** The tool call this context serves: where what an editor shows of it (a terminal) belongs. */
  callId?: string;
  /** The sub-agent that made the call (`explore#2`); absent for the session's own agent's. */
  agent?: string;
  /** What the editor cairn runs in lends the tools (ACP); without it, the disk and cairn's own processes. */
  editor?: EditorAccess;
}

/**
 * An editor's buffers and terminals, in place of the disk and child processes: the file tools
 * read unsaved changes and write into the buffers; run_command runs its (sandboxed) command line
 * in a terminal the editor shows. Either may be missing when the editor does not offer it.
 */
export interface EditorAccess {
  files?: EditorFiles;
  /** Starts a command as `spawnGroup` would, with the same result; `callId` is the call it runs for. */
  terminal?: (command: WrappedCommand, options: SpawnOptions, call?: CallRef) => ProcessHandle;
  /**
   * Evaluates Emacs Lisp in the editor (cairn.el, when the person lets it offer this): the value
   * as Lisp prints it, or the error the code signalled. Stops waiting when `signal` aborts.
   */
  emacsEval?: (code: string, signal: AbortSignal) => Promise<EvalOutcome>;
  /** Shows the person a file (absolute path), at a line when given. */
  openFile?: (file: string, line: number | undefined) => Promise<void>;
}

/** What evaluating code in the editor came to. */
export type EvalOutcome = { value: string; messages?: string } | { error: string; messages?: string };

/** Which tool call something belongs to: its id, and the sub-agent that made it (absent: the session's own agent). */
export interface CallRef {
  callId: string;
  agent?: string;
}

/** A job for an agent: a named agent, or a delegation target (`agent:codex`, `llm:cheap`). */
export interface AgentRequest {
  agent: string;
  prompt: string;
  /** For the built-in explorer: where to look, or how it works. */
  focus?: "files" | "analysis";
  /** What the job is, in a line, where the prompt's own first line does not say (a plan step's title). */
  title?: string;
  /** The tool call that handed the job over, so an approval the job needs is shown as part of it. */
  callId?: string;
}

/** How an agent's job went, as the agent that handed it over reads it. */
export interface AgentOutcome {
  /** Its id in the session, `explore#2`. */
  id: string;
  status: Exclude<AgentRunStatus, "running">;
  /** Its final answer; what it managed before it stopped, when it did not finish. */
  answer: string;
  /** Why it failed or stopped. */
  detail?: string;
  /** Workspace paths it changed; undefined when they cannot be known (not a git repository). */
  filesChanged: string[] | undefined;
  toolCalls: number;
  costUsd: number | null;
  durationMs: number;
}

export interface CommandSandbox {
  sandbox: Sandbox;
  /** The folder commands see as /tmp. */
  tmpDir: SessionTmpDir;
  /** Commands may use the network. */
  network: boolean;
  /** Folders in the workspace commands may not write (cairn's project config). */
  readOnly: string[];
  /** What commands may not read, given the secret files the call may (sandboxMasks.ts). */
  masks: (secrets: SecretFiles | undefined) => Masks;
  /** What one command may take of the machine (config `sandbox.limits`). */
  limits: SandboxLimits;
}

export interface TodoInput {
  id: string;
  content: string;
  status: "pending" | "in_progress" | "completed";
  priority?: "high" | "medium" | "low";
}

/** What one call acts on, said by the tool itself so that nothing else guesses from argument names. */
export interface ToolTouches {
  /**
   * Workspace-relative paths the call reads without writing them (a read's file, a search's
   * folder, copy_file's source): with `writes`, where the approval policy looks for files that
   * look like secrets, and the places an editor shows.
   */
  reads?: string[];
  /**
   * What the call writes in the work tree: its paths, `[]` when it changes no file there (a read,
   * git_commit), or "unknown" when it cannot say (a command, a local MCP server's tool): then
   * every changed file of the workspace is checkpointed around the call.
   */
  writes: string[] | "unknown";
  /** The command line an exec tool runs, and the folder it starts in, relative to the workspace. */
  command?: { text: string; cwd?: string };
  /** The text change an edit or a write proposes, for approval previews. */
  change?: ProposedChange;
  /**
   * Code the call evaluates outside any sandbox (emacs_eval: Lisp in the person's editor), shown
   * whole to whoever approves it. Such a call is asked about in every mode a rule does not allow.
   */
  code?: EvaluatedCode;
}

export interface Tool<S extends z.ZodType = z.ZodType> {
  name: string;
  /** What the model reads about the tool: kept in a Markdown file beside the code (descriptions/). */
  description: string;
  schema: S;
  /** The JSON Schema sent to the model when the tool brings its own (an MCP tool); else `schema`'s. */
  parameters?: Record<string, unknown>;
  permission: Permission;
  /** What the tool is, for front ends to show it by (an icon, a group): never its name. */
  kind: ToolKind;
  /** Acts on what only the session's own agent has (its TODO list): a sub-agent is not offered it. */
  mainAgentOnly?: boolean;
  /**
   * A tool most tasks never need (the web, a large MCP server's): the model is shown its name and
   * one line, `tool_search` gives its definition when asked, and it is called through `call_tool`
   * (`ToolRegistry`).
   */
  deferrable?: boolean;
  /** What the tool's provider says of it (an MCP server's annotations), shown when approval is asked. */
  annotations?: ToolAnnotations;
  /**
   * For a tool that calls another (call_mcp_tool): the tool a call really runs, so the approval
   * policy judges that one (its name, class and rules) in its place.
   */
  actsAs?(args: z.infer<S>): AnyTool | undefined;
  /**
   * Whether the call's effect is put to the approval policy as it happens, with more to show
   * than the call itself (handing a job to an external agent: its command line), so the call is
   * not asked about first: one question, not two.
   */
  asksInside?(args: z.infer<S>): boolean;
  execute(args: z.infer<S>, ctx: ToolContext): Promise<ToolOutput>;
  /** One short line naming what a call acts on (a path, `a → b`, a command, a pattern), or "": its title. */
  describe(args: z.infer<S>): string;
  /** What a call reads, writes, runs or changes; a tool that cannot say answers `unknownTouches`. */
  touches(args: z.infer<S>): ToolTouches;
}

/**
 * Tools that come and go while a session runs: the tools of MCP servers, which start when tools
 * are first needed, may crash, and may announce a new list.
 */
export interface ToolSource {
  /** The tools now, in an order that stays put while they do. */
  tools(): AnyTool[];
  /** Resolves once the source has its tools or has given up on them. */
  ready(): Promise<void>;
  /** Calls `listener` whenever `tools()` changes; returns what stops it. */
  subscribe(listener: () => void): () => void;
  close(): Promise<void>;
}

/** Keeps each tool's argument type while letting the registry hold them in one list. */
export function defineTool<S extends z.ZodType>(tool: Tool<S>): Tool<S> {
  return tool;
}

// biome-ignore lint/suspicious/noExplicitAny: the registry holds tools of every argument shape
export type AnyTool = Tool<any>;
