import { randomBytes } from "node:crypto";
import { realpathSync } from "node:fs";
import path from "node:path";
import { type AgentCatalog, loadAgents } from "../agents/files.js";
import { unknownExternalAgents } from "../agents/targets.js";
import { dataDir } from "../config/load.js";
import type { Config } from "../config/schema.js";
import type { WorkspaceTrust } from "../config/trust/decide.js";
import { loadProjectInstructions, type ProjectInstructions } from "../context/instructions.js";
import { RelevanceState } from "../context/relevance/rank.js";
import { buildSystemPrompt } from "../context/systemPrompt.js";
import { EventBus } from "../events/bus.js";
import type { Mode, OpOf, StampedEvent } from "../events/types.js";
import { type CommandCatalog, loadCustomCommands } from "../extensions/customCommands.js";
import { loadSkills, type SkillCatalog } from "../extensions/skills.js";
import type { Hooks } from "../hooks/hooks.js";
import type { McpTools, McpToolsOptions } from "../mcp/hub.js";
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
import { cleanEnvironment, type EnvironmentPolicy, environmentPolicy } from "../safety/environment.js";
import { createRedactor, type Redactor, redactEvents } from "../safety/redact.js";
import { detectSandbox, detectSandboxSoon, type SessionTmpDir, sessionTmpDir } from "../safety/sandbox.js";
import { sessionCredentials } from "../safety/sandboxMasks.js";
import { SecretFiles } from "../safety/secretFiles.js";
import type { Checkpoints } from "../store/checkpoints.js";
import type { Store } from "../store/sessions.js";
import { StoredVectors } from "../store/vectors.js";
import { ReadTracker } from "../tools/fileText.js";
import type { ToolRegistry } from "../tools/registry.js";
import type { CommandSandbox, EditorAccess } from "../tools/types.js";
import { type MainAgentContext, type ModelHandle, mainAgent } from "./agentContext.js";
import { withCheckpoints } from "./checkpointing.js";
import { DebugLog } from "./debugLog.js";
import { Inbox } from "./inbox.js";
import { UsageLedger } from "./ledger.js";
import { absentModel } from "./noModel.js";
import {
  approvalPolicy,
  configHooks,
  confinement,
  extraRoot,
  mcpServers,
  sessionTools,
} from "./sessionParts.js";

/** A stored session to continue: same id, its event sequence, its spending and changed files. */
export interface ResumedLog {
  id: string;
  events: StampedEvent[];
}

export interface SessionOptions {
  config: Config;
  modelId: string;
  /** Why no model can be reached, for a session whose work needs none: it runs without one (noModel.ts). */
  modelAbsent?: Error;
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
  /**
   * Where the session is recorded: every event is appended there before anyone else hears it,
   * and the workspace's spending and the embeddings' cache are read from it. None, none kept.
   */
  store?: Store;
}

/**
 * What a session is told from outside, by whatever front end drives it (through its
 * conversation): answers to what it waits for, an interrupt, an override. The ops of the protocol
 * (src/events/ops.ts) that act on the session itself; the conversation takes the rest.
 */
export type SessionOp = OpOf<"approve" | "answer" | "interrupt" | "override">;

/** Work that an interrupt stops: the turns running now. */
export interface Interruptible {
  abort(reason: Error): void;
}

/** What a session finds in the workspace and the person's folders when it starts. */
export interface WorkspaceFindings {
  /** AGENTS.md and the like: in the system prompt, and in the sub-agents' that do the project's work. */
  instructions: ProjectInstructions[];
  /** The agents `task` and `--agent` can name, and the agent files that could not be read. */
  agents: AgentCatalog;
  /** The custom slash commands of the person and the project (`.cairn/commands/*.md`). */
  commands: CommandCatalog;
  /** The skills the model can load (`.cairn/skills/<name>/SKILL.md`), offered by `load_skill`. */
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
 * What lives as long as the conversation or task, composed: its id and workspace, its event bus,
 * usage ledger, tool registry, inbox of requests waiting for a person, and its agents — its own
 * (`main`: the model, approval policy and TODO list its turns use, changed by ops) and the
 * sub-agents it starts. Each piece of work on it runs as a `Turn` (a do, a step of a run, a chat
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
  /** A person is there to answer approvals and questions. */
  readonly attended: boolean;
  /** Whether the workspace is trusted, and what of its own files applied or was left out (said at the start). */
  readonly trust: WorkspaceTrust | undefined;
  readonly startedAt = Date.now();
  /** Aborted when the wall-time cap (`timeout_s`) is reached; every turn's signal includes it. */
  readonly deadline: AbortSignal | undefined;

  /** Redacts every event; also for what is written outside the event stream (the report). */
  readonly redact: Redactor;
  readonly bus: EventBus;
  /** `--debug-log`: where model calls are summarised (events reach it through the bus). */
  readonly debug: DebugLog | undefined;
  readonly ledger: UsageLedger;
  readonly inbox: Inbox;
  /** The commands the config's `hooks:` runs on the session's events. */
  readonly hooks: Hooks;
  readonly registry: ToolRegistry;
  /** The configured MCP servers, started with the first request that offers tools; none, none loaded. */
  readonly mcp: McpTools | undefined;
  /** The system prompt of the session's own agent. */
  readonly system: string;
  /** The session's own agent: what its turns run as, unless a sub-agent's turn says another. */
  readonly main: MainAgentContext;
  /** How many of each agent have been started, for their ids (`explore#2`); shared with sub-agents. */
  readonly agentCounts = new Map<string, number>();

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

  /** Its instructions, agents, custom commands and skills, as it found them when it started. */
  readonly found: WorkspaceFindings;

  readonly filesChanged = new Set<string>();
  /** What the file tools last saw of each file, so that none is edited blindly after a change. */
  readonly reads = new ReadTracker();
  /** Where the session is recorded, when it is. */
  readonly store: Store | undefined;
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
    const { config } = options;
    const env = options.env ?? process.env;
    this.id = options.resume?.id ?? options.id ?? newSessionId();
    this.mode = options.mode;
    this.config = config;
    this.workspace = workspace;
    this.recordedWorkspace = options.recordedWorkspace ?? workspace;
    this.env = env;
    this.attended = options.attended;
    this.trust = options.trust;
    this.editor = options.editor;
    this.deadline = config.timeout_s ? AbortSignal.timeout(config.timeout_s * 1000) : undefined;
    this.found = found;

    this.redact = createRedactor({ env, config });
    this.bus = new EventBus(this.id, options.resume?.events.at(-1)?.seq ?? 0, redactEvents(this.redact));
    const { store } = options;
    this.store = store;
    if (store) {
      // On disk before anyone else hears it: what a front end shows is stored already.
      this.bus.subscribe((event) => store.appendEvent(event));
      this.relevance.cache = new StoredVectors(store.db);
    }
    this.debug = options.debugLog ? new DebugLog(options.debugLog, this.redact) : undefined;
    if (this.debug) this.bus.subscribe(this.debug.event);
    this.ledger = new UsageLedger(this.bus, {
      maxCostUsd: config.max_cost_usd,
      maxTokens: config.max_tokens,
    });
    this.inbox = new Inbox(this.bus);
    this.models.set(model.id, Promise.resolve(model));

    this.extraRoots = config.workspace.extra_roots.map((root) => extraRoot(workspace, root));
    this.envPolicy = environmentPolicy(config);
    this.commandEnv = this.environmentFor();
    const roots = [workspace, ...this.extraRoots];
    // One view of the machine's credentials for the sandbox and the file tools alike.
    const credentials = sessionCredentials(roots, env, () => this.scratch.own("git"));
    this.secrets = new SecretFiles(workspace, config.files.allow_secrets, new Set(), credentials);
    const sandbox = detectSandbox();
    this.sandbox = confinement(sandbox, {
      workspace,
      roots,
      credentials,
      scratch: this.scratch,
      settings: config.sandbox,
    });
    const report = (message: string) => this.bus.emit({ type: "error", message, fatal: false });
    this.hooks = configHooks(this.bus, config, {
      id: this.id,
      workspace,
      env: this.commandEnv,
      approvalMode: () => this.main.policy.mode,
      report,
    });
    this.mcp =
      mcpHub &&
      mcpServers(mcpHub, {
        config,
        workspace,
        env,
        serverEnv: this.commandEnv,
        workspaceServers: options.workspaceServers ?? {},
        workspaceTrusted: options.trust?.trusted ?? false,
        report: (event) => this.bus.emit(event),
        approve: this.approveServer,
      });
    this.registry = sessionTools(config, env, {
      skills: found.skills,
      editor: options.editor,
      mcp: this.mcp,
      wrap: (tool) => withCheckpoints(tool, () => this.checkpoints(), this.id),
    });
    this.system = buildSystemPrompt({
      workspace,
      instructions: found.instructions,
      ...(model.info.toolCalls === "text" ? { textTools: this.registry } : {}),
    });
    this.main = mainAgent({
      bus: this.bus,
      ledger: this.ledger,
      registry: this.registry,
      system: this.system,
      inbox: this.inbox,
      model,
      policy: approvalPolicy(config, {
        workspace,
        env,
        ask: options.attended ? this.inbox.approve : undefined,
        sandbox,
        secrets: this.secrets,
        rulesFolder: this.trust?.folder ?? workspace,
        report,
      }),
    });
    if (options.resume) this.restore(options.resume.events);
  }

  /**
   * Whether a workspace's MCP server may start: the session's own policy as it is then. A
   * question the person's interrupt dismissed is no answer: it is asked again next turn.
   */
  private readonly approveServer: McpToolsOptions["approve"] = async (request) => {
    const interrupts = this.interrupts;
    const decision = await this.main.policy.check(request);
    return !decision.allowed && this.interrupts !== interrupts
      ? { ...decision, interrupted: true }
      : decision;
  };

  /** A stored session's state, from its log: the files it changed, its TODO list, its turns, its spending. */
  private restore(events: readonly StampedEvent[]): void {
    for (const event of events) {
      if (event.type === "tool.result")
        for (const file of event.changed_files ?? []) this.filesChanged.add(file);
      if (event.type === "todos") this.main.todos = event.todos;
      if (event.type === "turn.started") this.turns = event.turn;
    }
    this.ledger.restore(events.filter((event) => event.type === "usage"));
    this.announced = true;
  }

  static async create(options: SessionOptions): Promise<Session> {
    const env = options.env ?? process.env;
    const workspace = realpathSync(path.resolve(options.workspace));
    const model = options.modelAbsent
      ? absentModel(options.modelId, options.modelAbsent)
      : await buildModel(options.modelId, options.config, env);
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
    // An external agent the config names that cannot be run is said with the agent files' problems.
    const problems = [...agents.problems, ...unknownExternalAgents(options.config)];
    const found = { instructions, agents: { ...agents, problems }, commands, skills };
    return new Session(options, model, workspace, found, hub?.McpTools);
  }

  /**
   * What every session recorded in this workspace has cost so far, this one's stored calls
   * included; unknown for a session no store records.
   */
  workspaceSpend(): number | undefined {
    return this.store?.workspaceCost(this.recordedWorkspace);
  }

  /**
   * The model for a role (cheap, strong, review), a profile the config names, or any
   * provider/model id, built on first use.
   */
  modelFor(ref: ModelRole | string): Promise<ModelHandle> {
    const role = ROLES.find((r) => r === ref);
    const profile = Object.hasOwn(this.config.profiles, ref) ? this.config.profiles[ref] : undefined;
    // The session's model stands in for every role the config leaves unset.
    const current = this.main.model.id;
    const id = role === "default" ? current : role ? (profile ?? current) : (profile ?? ref);
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
        if (op.approval) this.main.policy = this.main.policy.with({ mode: op.approval });
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
    const from = this.main.model.id;
    this.main.model = handle;
    // Before the first message there is no session in the store for an event to belong to.
    if (this.announced && from !== handle.id)
      this.bus.emit({ type: "escalation", from, to: handle.id, reason: "switched by the user" });
  }
}
