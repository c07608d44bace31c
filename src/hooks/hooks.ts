import path from "node:path";
import type { Config, HookEvent, HookMatcher } from "../config/schema.js";
import { claudeNamesOf } from "../extensions/claudeNames.js";
import { runHookCommand } from "./run.js";
import { combined, type HookVerdict, verdictOf } from "./verdict.js";

/** What hooks know of the session they run for. */
export interface HookSession {
  id: string;
  workspace: string;
  /** The environment of what cairn runs (without secrets), to which the hooks' own variables are added. */
  env: Record<string, string>;
  /** The approval mode now (Claude Code's `permission_mode`). */
  approvalMode: () => string;
  /** Says to the person what a hook said, or that one failed; nothing a hook says is lost. */
  report: (message: string) => void;
}

/** A tool call as hooks see it. */
export interface HookedCall {
  id: string;
  tool: string;
  args: unknown;
}

/** Whether a hook's matcher takes a name: none, empty or `*` takes all; else a regular expression over the whole name. */
function matches(matcher: string | undefined, names: readonly string[]): boolean {
  if (matcher === undefined || matcher === "" || matcher === "*") return true;
  const pattern = new RegExp(`^(?:${matcher})$`);
  return names.some((name) => pattern.test(name));
}

/**
 * A call's arguments as Claude Code's hook scripts read them: as given, with `file_path` (the
 * absolute path) beside a `path`, which is what its file tools take.
 */
function toolInput(args: unknown, workspace: string): unknown {
  if (typeof args !== "object" || args === null || Array.isArray(args)) return args;
  const given = args as Record<string, unknown>;
  return typeof given.path === "string"
    ? { ...given, file_path: path.resolve(workspace, given.path) }
    : given;
}

/** Turns of the loop a Stop hook may ask for in one turn: its scripts are meant to let go, this makes sure. */
export const MAX_STOP_CONTINUES = 5;

/**
 * The commands the config's `hooks:` runs on the session's events (docs/hooks.md), shaped as
 * Claude Code's so that its hook scripts work: the event as JSON on standard input, exit 2 (or a
 * JSON `decision`) to block, with a reason the model or the person is told. Hooks of one event
 * run at once; one that fails or times out is said, and blocks nothing.
 */
export class Hooks {
  private readonly config: Config["hooks"];
  private readonly session: HookSession;

  constructor(config: Config["hooks"], session: HookSession) {
    this.config = config;
    this.session = session;
  }

  /** Whether any hook is set for the event: nothing is spent on events without one. */
  has(event: HookEvent): boolean {
    return (this.config[event]?.length ?? 0) > 0;
  }

  private async run(
    event: HookEvent,
    fields: Record<string, unknown>,
    options: { names?: readonly string[]; signal?: AbortSignal | undefined } = {},
  ): Promise<HookVerdict> {
    const matchers: HookMatcher[] = (this.config[event] ?? []).filter(
      (matcher) => !options.names || matches(matcher.matcher, options.names),
    );
    const commands = matchers.flatMap((matcher) => matcher.hooks);
    if (commands.length === 0) return { notes: [] };
    const { id, workspace } = this.session;
    const input = {
      session_id: id,
      cwd: workspace,
      hook_event_name: event,
      permission_mode: this.session.approvalMode(),
      ...fields,
    };
    const env = {
      ...this.session.env,
      CAIRN_PROJECT_DIR: workspace,
      CLAUDE_PROJECT_DIR: workspace,
      CAIRN_SESSION_ID: id,
    };
    const runs = await Promise.all(
      commands.map((hook) =>
        runHookCommand(hook.command, input, {
          cwd: workspace,
          env,
          timeoutS: hook.timeout,
          signal: options.signal,
        }),
      ),
    );
    const verdict = combined(runs.map((run) => verdictOf(run, event)));
    for (const note of verdict.notes) this.session.report(note);
    return verdict;
  }

  private tool(
    event: "PreToolUse" | "PostToolUse",
    call: HookedCall,
    extra: Record<string, unknown>,
    signal?: AbortSignal,
  ) {
    return this.run(
      event,
      {
        tool_name: call.tool,
        tool_input: toolInput(call.args, this.session.workspace),
        tool_use_id: call.id,
        ...extra,
      },
      { names: [call.tool, ...claudeNamesOf(call.tool)], signal },
    );
  }

  /** PreToolUse: before a call is put to the approval policy; a block keeps it from running. */
  beforeTool(call: HookedCall, signal?: AbortSignal): Promise<HookVerdict> {
    return this.has("PreToolUse")
      ? this.tool("PreToolUse", call, {}, signal)
      : Promise.resolve({ notes: [] });
  }

  /** PostToolUse: after a call ran; what a hook says back (a block's reason, context) goes to the model with the result. */
  afterTool(
    call: HookedCall,
    result: { ok: boolean; output: string },
    signal?: AbortSignal,
  ): Promise<HookVerdict> {
    if (!this.has("PostToolUse")) return Promise.resolve({ notes: [] });
    return this.tool(
      "PostToolUse",
      call,
      { tool_response: { success: result.ok, output: result.output } },
      signal,
    );
  }

  /** UserPromptSubmit: before the person's prompt goes to the model; a block keeps it from going. */
  onPrompt(prompt: string, signal?: AbortSignal): Promise<HookVerdict> {
    return this.has("UserPromptSubmit")
      ? this.run("UserPromptSubmit", { prompt }, { signal })
      : Promise.resolve({ notes: [] });
  }

  /**
   * Stop: the agent has answered; a block sends it back to work, with the reason as what to do.
   * `active` says it is going on because a Stop hook asked, so a script can let it stop.
   */
  onStop(lastMessage: string, active: boolean, signal?: AbortSignal): Promise<HookVerdict> {
    if (!this.has("Stop")) return Promise.resolve({ notes: [] });
    return this.run("Stop", { stop_hook_active: active, last_assistant_message: lastMessage }, { signal });
  }

  /** SessionEnd: the session is closing; what the hooks say changes nothing. */
  async onSessionEnd(reason: string): Promise<void> {
    if (this.has("SessionEnd")) await this.run("SessionEnd", { reason });
  }

  /** Notification: cairn waits for the person (an approval, a question); run without waiting for the hooks. */
  notify(message: string, type: "permission_prompt" | "question"): void {
    if (this.has("Notification"))
      void this.run("Notification", { message, notification_type: type }, { names: [type] });
  }
}

/**
 * The Stop hooks of one piece of work (a `cairn do`, a chat message, a `cairn run`), asked each
 * time it would end: a block sends it back with the reason as what to do, at most
 * MAX_STOP_CONTINUES times; `stop_hook_active` tells the hooks when it already went back.
 */
export class StopHookRounds {
  private readonly hooks: Hooks;
  private continues = 0;

  constructor(hooks: Hooks) {
    this.hooks = hooks;
  }

  /** Whether Stop hooks are set that may still send the work back. */
  get left(): boolean {
    return this.hooks.has("Stop") && this.continues < MAX_STOP_CONTINUES;
  }

  /** What the hooks ask for before the work ends, counted as one more round; undefined when it may end. */
  async goOn(lastMessage: string, signal?: AbortSignal): Promise<string | undefined> {
    if (!this.left || signal?.aborted) return undefined;
    const verdict = await this.hooks.onStop(lastMessage, this.continues > 0, signal);
    if (verdict.block !== undefined) this.continues++;
    return verdict.block;
  }
}
