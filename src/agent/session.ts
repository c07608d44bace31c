import { randomBytes } from "node:crypto";
import { realpathSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { type AgentCatalog, loadAgents } from "../agents/files.js";
import { unknownExternalAgents } from "../agents/targets.js";
import { agentTools } from "../agents/tools.js";
import { dataDir, projectConfigFile } from "../config/load.js";
import type { ApprovalMode, Config } from "../config/schema.js";
import type { WorkspaceTrust } from "../config/trust/decide.js";
import { saveFolderRules } from "../config/trust/store.js";
import { loadProjectInstructions, type ProjectInstructions } from "../context/instructions.js";
import { RelevanceState } from "../context/relevance/rank.js";
import { buildSystemPrompt } from "../context/systemPrompt.js";
import { EventBus } from "../events/bus.js";
import type { ApprovalChoice, Mode, StampedEvent, TodoItem } from "../events/types.js";
import { type CommandCatalog, loadCustomCommands } from "../extensions/customCommands.js";
import { loadSkills, type SkillCatalog } from "../extensions/skills.js";
import { skillTool } from "../extensions/skillTool.js";
import { Hooks } from "../hooks/hooks.js";
import type { McpTools } from "../mcp/hub.js";
import { modelInfo } from "../model/catalog.js";
import { ContextSizer } from "../model/contextSize.js";
import { factsFile, learnModelFacts } from "../model/facts/learn.js";
import {
  createLanguageModel,
  localServer,
  type ModelRole,
  parseModelId,
  providerSpec,
} from "../model/providers.js";
import { ConfigError } from "../platform/errors.js";
import { ApprovalPolicy } from "../safety/approval.js";
import { cleanEnvironment, type EnvironmentPolicy, environmentPolicy } from "../safety/environment.js";
import { createRedactor, type Redactor, redactEvents } from "../safety/redact.js";
import { detectSandbox, detectSandboxSoon, type SessionTmpDir, sessionTmpDir } from "../safety/sandbox.js";
import { sessionMasks } from "../safety/sandboxMasks.js";
import { SecretFiles } from "../safety/secretFiles.js";
import type { Checkpoints } from "../store/checkpoints.js";
import { editorTools } from "../tools/editor.js";
import { ReadTracker } from "../tools/fileText.js";
import { planTools } from "../tools/plan.js";
import { passes, TOOL_SEARCH, ToolRegistry } from "../tools/registry.js";
import type { CommandSandbox, EditorAccess } from "../tools/types.js";
import { WORKSPACE_TOOLS } from "../tools/workspaceTools.js";
import { webTools } from "../web/tools.js";
import { type AgentContext, type ModelHandle, mainAgent } from "./agentContext.js";
import { withCheckpoints } from "./checkpointing.js";
import { DebugLog } from "./debugLog.js";
import { Inbox } from "./inbox.js";
import { UsageLedger } from "./ledger.js";

/** A stored session to continue: same id, its event sequence, its spending and changed files. */
export interface ResumedLog {
  id: string;
  events: StampedEvent[];
}

export interface SessionOptions {
  config: Config;
  modelId: string;
  workspace: string;
  mode: Mode;
  /** A person is there to answer approvals and questions (a terminal, an editor, the dashboard). */
  attended: boolean;
  env?: NodeJS.ProcessEnv;
  resume?: ResumedLog;
  /** The id of a new session, when its caller chooses it (the HTTP API's `session_id`); a new one otherwise. */
  id?: string;
  /**
   * The workspace to record (store, reports) instead of `workspace`, which the session still works
   * in: a batch's task works in a throwaway copy and is recorded under its original repository.
   */
  recordedWorkspace?: string;
  /**
   * MCP servers the workspace itself defines (`.mcp.json`, its `.cairn/config.yaml`), with the
   * file that does, as `loadConfig` finds them: each starts only once the approval policy allows it.
   */
  workspaceServers?: Record<string, string>;
  /**
   * Whether the person trusts the workspace, as `loadConfig` decided it. Without it the workspace
   * is not trusted: its agent files, commands and skills may not widen what the session allows.
   */
  trust?: WorkspaceTrust;
  /** What the editor the session runs in (`cairn acp`) lends its tools; its own tools (emacs_eval) are offered only then. */
  editor?: EditorAccess;
  /** `--debug-log FILE`: every event and a summary of each model call, appended there (redacted). */
  debugLog?: string;
}

/**
 * What a session is told from outside, by whatever front end drives it (the terminal, the TUI,
 * an editor over ACP, the HTTP API): the one way in, as events are the one way out.
 */
export type SessionOp =
  | { type: "approve"; request_id: string; choice: ApprovalChoice; reason?: string }
  | { type: "answer"; request_id: string; answer: string | null }
  /** Stops what runs now, keeping its work; whatever waits for an answer is declined. */
  | { type: "interrupt"; reason?: string }
  /** From now on: another model (a role of the config or a provider/model id), another approval mode. */
  | { type: "override"; model?: string; approval?: ApprovalMode };

/** Work that an interrupt stops: the turns running now. */
export interface Interruptible {
  abort(reason: Error): void;
}

/** An extra root as a real path; one that does not exist is a configuration mistake, said as one. */
function extraRoot(workspace: string, root: string): string {
  try {
    return realpathSync(path.resolve(workspace, root));
  } catch {
    throw new ConfigError(
      `workspace.extra_roots: ${root} does not exist (resolved from ${workspace}); create it or remove it from the config.`,
    );
  }
}

/** What a session finds in the workspace and the person's folders when it starts. */
interface WorkspaceFindings {
  instructions: ProjectInstructions[];
  agents: AgentCatalog;
  commands: CommandCatalog;
  skills: SkillCatalog;
}

/** Sortable by creation time and short enough to type: `20261122-014455-3fa9c1`. */
export function newSessionId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
  return `${stamp}-${randomBytes(3).toString("hex")}`;
}

const ROLES: readonly ModelRole[] = ["default", "cheap", "strong", "review"];

/** A model ready to call, with what its server says of it when it is a local one. */
async function buildModel(modelId: string, config: Config, env: NodeJS.ProcessEnv): Promise<ModelHandle> {
  const server = localServer(modelId, config, env);
  const [model, learned] = await Promise.all([
    createLanguageModel(modelId, config, env),
    server && learnModelFacts({ ...server, modelId, cacheFile: factsFile(dataDir(env)) }),
  ]);
  const info = modelInfo(modelId, config, learned);
  const spec = providerSpec(parseModelId(modelId).provider);
  return {
    id: modelId,
    model,
    info,
    ...(spec.sizesContext ? { sizer: new ContextSizer(info.contextWindow, learned?.defaultContext) } : {}),
  };
}

/**
 * What lives as long as the conversation or task: its id, events, spending, tools, model choice
 * and approval policy. Each piece of work on it runs as a `Turn` (a do, a step of a run, a chat
 * message, a sub-agent), which carries its own cancellation, model and checkpoint label.
 */
export class Session {
  readonly id: string;
  readonly mode: Mode;
  readonly config: Config;
  readonly workspace: string;
  /** What the session is recorded under: `workspace`, unless a batch said its original repository. */
  readonly recordedWorkspace: string;
  readonly env: NodeJS.ProcessEnv;
  /** Redacts every event; also for what is written outside the event stream (the report). */
  readonly redact: Redactor;
  readonly bus: EventBus;
  readonly ledger: UsageLedger;
  readonly registry: ToolRegistry;
  /** The configured MCP servers, started with the first request that offers tools; none, none loaded. */
  readonly mcp: McpTools | undefined;
  readonly inbox: Inbox;
  /** The session's own agent: what its turns run as, unless a sub-agent's turn says another. */
  readonly main: AgentContext;
  readonly attended: boolean;
  readonly system: string;
  readonly startedAt = Date.now();
  /** Aborted when the wall-time cap (`timeout_s`) is reached; every turn's signal includes it. */
  readonly deadline: AbortSignal | undefined;
  readonly filesChanged = new Set<string>();
  /** What the file tools last saw of each file, so that none is edited blindly after a change. */
  readonly reads = new ReadTracker();
  readonly extraRoots: string[];
  /** How commands are confined; absent where no sandbox works. */
  readonly sandbox: CommandSandbox | undefined;
  /** What the model's commands, checks and git get of `env`: everything but its secrets. */
  readonly commandEnv: Record<string, string>;
  /** Which files look like secrets, and which of them the config lets the model read. */
  readonly secrets: SecretFiles;
  private readonly envPolicy: EnvironmentPolicy;
  /** What sandboxed commands see as /tmp, removed when the session closes. */
  private readonly scratch: SessionTmpDir = sessionTmpDir();
  /** The buffers, terminals and Lisp of the editor the session runs in (`cairn acp`), lent to the tools. */
  readonly editor: EditorAccess | undefined;
  /** `--debug-log`: where model calls are summarised (events reach it through the bus). */
  readonly debug: DebugLog | undefined;
  todos: TodoItem[] = [];
  /** AGENTS.md and the like: in the system prompt, and in the sub-agents' that do the project's work. */
  readonly instructions: ProjectInstructions[];
  /** The agents `task` and `--agent` can name, and the agent files that could not be read. */
  readonly agents: AgentCatalog;
  /** The custom slash commands of the person and the project (`.cairn/commands/*.md`). */
  readonly commands: CommandCatalog;
  /** The skills the model can load (`.cairn/skills/<name>/SKILL.md`), offered by `load_skill`. */
  readonly skills: SkillCatalog;
  /** The commands the config's `hooks:` runs on the session's events. */
  readonly hooks: Hooks;
  /** Whether the workspace is trusted, and what of its own files applied or was left out (said at the start). */
  readonly trust: WorkspaceTrust | undefined;
  /** How many of each agent have been started, for their ids (`explore#2`); shared with sub-agents. */
  readonly agentCounts = new Map<string, number>();
  /** The model turns use unless given another; `override` switches it. */
  model: ModelHandle;
  /** The approval policy turns ask unless given another; `override` changes its mode. */
  policy: ApprovalPolicy;
  /**
   * What every session recorded in this workspace has cost so far, this one's stored calls
   * included: the host sets it where a store records the session.
   */
  workspaceSpend: (() => number) | undefined = undefined;
  /** File relevance: the last corpus, the embeddings' cache (the store's, set by the host), whether they failed. */
  readonly relevance = new RelevanceState();
  /** Whether the session has announced itself (its first event is stored). */
  announced = false;
  /** Its turns so far, stored ones included: the number of the last `turn.started`. */
  turns = 0;
  /** How many times the person has interrupted: a question dismissed by one was not answered. */
  private interrupts = 0;
  readonly running = new Set<Interruptible>();
  private readonly warned = new Set<string>();
  private readonly models = new Map<string, Promise<ModelHandle>>();
  private checkpointStore: Promise<Checkpoints> | undefined;

  private constructor(
    options: SessionOptions,
    model: ModelHandle,
    workspace: string,
    found: WorkspaceFindings,
    mcpHub: typeof McpTools | undefined,
  ) {
    const { instructions, agents } = found;
    const { config } = options;
    const env = options.env ?? process.env;
    this.id = options.resume?.id ?? options.id ?? newSessionId();
    this.mode = options.mode;
    this.config = config;
    this.workspace = workspace;
    this.recordedWorkspace = options.recordedWorkspace ?? workspace;
    this.env = env;
    this.attended = options.attended;
    this.instructions = instructions;
    this.trust = options.trust;
    this.agents = { ...agents, problems: [...agents.problems, ...unknownExternalAgents(config)] };
    this.commands = found.commands;
    this.skills = found.skills;
    this.redact = createRedactor({ env, config });
    this.bus = new EventBus(this.id, options.resume?.events.at(-1)?.seq ?? 0, redactEvents(this.redact));
    this.debug = options.debugLog ? new DebugLog(options.debugLog, this.redact) : undefined;
    if (this.debug) this.bus.subscribe(this.debug.event);
    this.ledger = new UsageLedger(this.bus, {
      maxCostUsd: config.max_cost_usd,
      maxTokens: config.max_tokens,
    });
    this.inbox = new Inbox(this.bus);
    this.main = mainAgent(this, this.inbox);
    this.deadline = config.timeout_s ? AbortSignal.timeout(config.timeout_s * 1000) : undefined;
    this.editor = options.editor;
    this.model = model;
    this.models.set(model.id, Promise.resolve(model));
    this.extraRoots = config.workspace.extra_roots.map((root) => extraRoot(workspace, root));
    this.envPolicy = environmentPolicy(config);
    this.commandEnv = this.environmentFor();
    this.hooks = new Hooks(config.hooks, {
      id: this.id,
      workspace,
      env: this.commandEnv,
      approvalMode: () => this.policy.mode,
      report: (message) => this.bus.emit({ type: "error", message, fatal: false }),
    });
    // The person is waited for: hooks may tell them where they are (a desktop notification, a sound).
    this.bus.subscribe((event) => {
      if (event.type === "approval.requested")
        this.hooks.notify(`cairn needs your permission to use ${event.prompt.tool}`, "permission_prompt");
      if (event.type === "question.asked") this.hooks.notify(event.question, "question");
    });
    this.secrets = new SecretFiles(workspace, config.files.allow_secrets);
    const sandbox = detectSandbox();
    this.sandbox =
      sandbox.kind === "none"
        ? undefined
        : {
            sandbox,
            tmpDir: this.scratch,
            network: config.sandbox.network,
            // Approval rules and sandbox settings: a command must not loosen them for later sessions.
            readOnly: [path.dirname(projectConfigFile(workspace))],
            masks: sessionMasks([workspace, ...this.extraRoots], env, () => this.scratch.own("git")),
          };
    // tool_search names the tools that can wait, unless the config turns it off or filters it out.
    const onDemand = config.tools.on_demand && passes(config.tools, TOOL_SEARCH);
    // MCP servers' tools come and go as the servers start, change their lists and stop.
    this.mcp =
      mcpHub &&
      new mcpHub({
        deferAbove: onDemand ? config.tools.mcp_direct : undefined,
        servers: config.mcp_servers,
        workspace,
        env,
        serverEnv: this.commandEnv,
        report: (event) => this.bus.emit(event),
        workspaceServers: options.workspaceServers ?? {},
        // The session's policy as it is when they start: its mode, rules and way of asking. A
        // question the person's interrupt dismissed is no answer: it is asked again next turn.
        approve: async (request) => {
          const interrupts = this.interrupts;
          const decision = await this.policy.check(request);
          return !decision.allowed && this.interrupts !== interrupts
            ? { ...decision, interrupted: true }
            : decision;
        },
      });
    this.registry = new ToolRegistry(
      [
        ...WORKSPACE_TOOLS,
        ...planTools,
        ...agentTools,
        ...webTools(config.web, env),
        ...editorTools(options.editor),
        // Offered only when there are skills: their list costs nothing otherwise.
        ...(found.skills.skills.size ? [skillTool(found.skills.skills)] : []),
      ],
      config.tools,
      {
        sources: this.mcp ? [this.mcp] : [],
        wrap: (tool) => withCheckpoints(tool, () => this.checkpoints(), this.id),
        onDemand,
      },
    );
    this.policy = new ApprovalPolicy({
      mode: config.approval ?? (options.attended ? "ask" : "auto-edit"),
      ask: options.attended ? this.inbox.approve : undefined,
      rules: config.rules,
      workspace,
      home: env.HOME || os.homedir(),
      sandbox,
      settings: config.sandbox,
      secrets: this.secrets,
      // The person's answer, so it is kept in their own settings for this folder, not in the workspace's files.
      saveRules: (rules) =>
        saveFolderRules(this.trust?.folder ?? workspace, rules, env).catch((error: unknown) => {
          const why = error instanceof Error ? error.message : String(error);
          this.bus.emit({
            type: "error",
            message: `Could not save the rule for this folder: ${why}`,
            fatal: false,
          });
        }),
    });
    this.system = buildSystemPrompt({
      workspace,
      instructions,
      ...(model.info.toolCalls === "text" ? { textTools: this.registry } : {}),
    });
    for (const event of options.resume?.events ?? []) {
      if (event.type === "tool.result")
        for (const file of event.changed_files ?? []) this.filesChanged.add(file);
      if (event.type === "todos") this.todos = event.todos;
      if (event.type === "turn.started") this.turns = event.turn;
    }
    this.ledger.restore((options.resume?.events ?? []).filter((e) => e.type === "usage"));
    this.announced = Boolean(options.resume);
  }

  static async create(options: SessionOptions): Promise<Session> {
    const env = options.env ?? process.env;
    const workspace = realpathSync(path.resolve(options.workspace));
    const model = await buildModel(options.modelId, options.config, env);
    const carried = { trusted: options.trust?.trusted ?? false, config: options.config };
    const [instructions, agents, commands, skills, , hub] = await Promise.all([
      loadProjectInstructions(workspace, env),
      loadAgents(workspace, env, carried),
      loadCustomCommands(workspace, env, carried),
      loadSkills(workspace, env, carried),
      // Found in the background when the command started it early; the constructor reads it.
      detectSandboxSoon(),
      // The MCP client is loaded only for a session that has servers to start.
      Object.keys(options.config.mcp_servers).length ? import("../mcp/hub.js") : undefined,
    ]);
    return new Session(options, model, workspace, { instructions, agents, commands, skills }, hub?.McpTools);
  }

  /**
   * The model for a role (cheap, strong, review), a profile the config names, or any
   * provider/model id, built on first use.
   */
  modelFor(ref: ModelRole | string): Promise<ModelHandle> {
    const role = ROLES.find((r) => r === ref);
    const profile = Object.hasOwn(this.config.profiles, ref) ? this.config.profiles[ref] : undefined;
    // The session's model stands in for every role the config leaves unset.
    const id = role === "default" ? this.model.id : role ? (profile ?? this.model.id) : (profile ?? ref);
    let handle = this.models.get(id);
    if (!handle) {
      handle = buildModel(id, this.config, this.env);
      // A model that cannot be built (no key, bad id) is not remembered: the next ask says why again.
      handle.catch(() => this.models.delete(id));
      this.models.set(id, handle);
    }
    return handle;
  }

  /**
   * The environment for a program cairn starts on the model's behalf: cairn's own without its
   * secrets, plus the variables in `pass` (an external agent's own provider keys). MCP servers
   * over stdio start from it too, with the `env` their config gives on top.
   */
  environmentFor(pass: string[] = []): Record<string, string> {
    return cleanEnvironment(this.env, this.envPolicy, pass);
  }

  /**
   * Stops what the session started outside itself (its MCP servers), its SessionEnd hooks told
   * first, and removes its scratch folder; closes its debug log.
   */
  async close(reason = "exit"): Promise<void> {
    try {
      if (this.announced) await this.hooks.onSessionEnd(reason);
      this.scratch.remove();
      await this.registry.close();
    } finally {
      this.debug?.close();
    }
  }

  /** A warning the person should see once in the session however often it recurs (an ignored setting). */
  warnOnce(message: string): void {
    if (this.warned.has(message)) return;
    this.warned.add(message);
    this.bus.emit({ type: "error", message, fatal: false });
  }

  /** The shadow repository file changes are checkpointed in, opened on the first change. */
  checkpoints(): Promise<Checkpoints> {
    // Loaded with the first change to check-point: a session that only reads never needs it.
    this.checkpointStore ??= import("../store/checkpoints.js").then(({ Checkpoints }) =>
      Checkpoints.open(this.workspace, { dataDir: dataDir(this.env) }),
    );
    return this.checkpointStore;
  }

  /**
   * The one way in. Approvals and answers resolve what the session is waiting for (an
   * `AnswerError` when nothing by that id waits, or the choice was not offered); an interrupt
   * stops every running turn and declines what waits; an override applies from the next call on.
   */
  async submit(op: SessionOp): Promise<void> {
    switch (op.type) {
      case "approve":
        return this.inbox.answerApproval(op.request_id, {
          choice: op.choice,
          ...(op.reason !== undefined ? { reason: op.reason } : {}),
        });
      case "answer":
        return this.inbox.answerQuestion(op.request_id, op.answer);
      case "interrupt": {
        this.interrupts++;
        const reason = op.reason ?? "interrupted by the user";
        this.inbox.dismissAll(reason);
        for (const turn of [...this.running]) turn.abort(new Error(reason));
        return;
      }
      case "override":
        if (op.approval) this.policy = this.policy.with({ mode: op.approval });
        if (op.model) await this.switchModel(op.model);
        return;
      default: {
        const unknown: never = op;
        throw new Error(`unknown session op ${JSON.stringify(unknown)}`);
      }
    }
  }

  private async switchModel(ref: string): Promise<void> {
    const handle = await this.modelFor(ref);
    const from = this.model.id;
    this.model = handle;
    // Before the first message there is no session in the store for an event to belong to.
    if (this.announced && from !== handle.id)
      this.bus.emit({ type: "escalation", from, to: handle.id, reason: "switched by the user" });
  }
}
