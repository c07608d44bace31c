import { randomBytes } from "node:crypto";
import { realpathSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { LanguageModel } from "ai";
import { dataDir, projectConfigFile } from "../config/load.js";
import type { Config } from "../config/schema.js";
import { loadProjectInstructions } from "../context/instructions.js";
import { buildSystemPrompt } from "../context/systemPrompt.js";
import { EventBus } from "../events/bus.js";
import type { Mode, StampedEvent, TodoItem } from "../events/types.js";
import { modelInfo } from "../model/catalog.js";
import { createLanguageModel, type ModelRole } from "../model/providers.js";
import { ConfigError } from "../platform/errors.js";
import { ApprovalPolicy, type AskApproval } from "../safety/approval.js";
import { createRedactor, type Redactor, redactEvents } from "../safety/redact.js";
import { saveWorkspaceRules } from "../safety/rules.js";
import { detectSandbox, sessionTmpDir } from "../safety/sandbox.js";
import { Checkpoints } from "../store/checkpoints.js";
import { commandTools } from "../tools/command.js";
import { dataTools } from "../tools/data.js";
import { exploreTools } from "../tools/explore.js";
import { fileTools } from "../tools/files.js";
import { ReadTracker } from "../tools/fileText.js";
import { gitTools } from "../tools/git.js";
import { planTools } from "../tools/plan.js";
import { ToolRegistry } from "../tools/registry.js";
import type { ToolContext } from "../tools/types.js";
import { withCheckpoints } from "./checkpointing.js";
import { consultStrongModel } from "./consult.js";
import { UsageLedger } from "./ledger.js";

export interface ModelHandle {
  id: string;
  model: LanguageModel;
  info: ReturnType<typeof modelInfo>;
}

export interface SessionOptions {
  config: Config;
  modelId: string;
  workspace: string;
  mode: Mode;
  signal: AbortSignal;
  ask?: AskApproval;
  /** Answers the model's ask_user; absent when nobody is there. */
  askUser?: (question: string) => Promise<string | undefined>;
  env?: NodeJS.ProcessEnv;
  /** Continue this stored session: same id, its event sequence, its spending and changed files. */
  resume?: { id: string; events: StampedEvent[] };
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

/** Sortable by creation time and short enough to type: `20261122-014455-3fa9c1`. */
export function newSessionId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
  return `${stamp}-${randomBytes(3).toString("hex")}`;
}

/** Everything one run needs, built once: model, tools, prompt, policy, ledger, events. */
export interface AgentSession {
  id: string;
  mode: Mode;
  config: Config;
  workspace: string;
  /** Redacts every event; also for what is written outside the event stream (the report). */
  redact: Redactor;
  bus: EventBus;
  ledger: UsageLedger;
  model: ModelHandle;
  registry: ToolRegistry;
  policy: ApprovalPolicy;
  toolContext: ToolContext;
  system: string;
  signal: AbortSignal;
  /** Aborted when the wall-time cap (`timeout_s`) is reached; part of `signal`. */
  deadline: AbortSignal | undefined;
  filesChanged: Set<string>;
  todos: TodoItem[];
  /** The step file changes are checkpointed under: undo goes back a step at a time. */
  stepLabel: string;
  startedAt: number;
  /** The model for a role (cheap, strong, review), built on first use. */
  modelFor: (role: ModelRole) => Promise<ModelHandle>;
}

async function buildModel(modelId: string, config: Config, env: NodeJS.ProcessEnv): Promise<ModelHandle> {
  return {
    id: modelId,
    model: await createLanguageModel(modelId, config, env),
    info: modelInfo(modelId, config),
  };
}

export async function createSession(options: SessionOptions): Promise<AgentSession> {
  const env = options.env ?? process.env;
  const workspace = realpathSync(path.resolve(options.workspace));
  const config = options.config;
  const id = options.resume?.id ?? newSessionId();
  const redact = createRedactor({ env, config });
  const bus = new EventBus(id, options.resume?.events.at(-1)?.seq ?? 0, redactEvents(redact));
  const sandbox = detectSandbox();
  const deadline = config.timeout_s ? AbortSignal.timeout(config.timeout_s * 1000) : undefined;
  const signal = deadline ? AbortSignal.any([options.signal, deadline]) : options.signal;
  const model = await buildModel(options.modelId, config, env);
  const byId = new Map<string, Promise<ModelHandle>>([[model.id, Promise.resolve(model)]]);
  // The chosen model stands in for every role the config leaves unset.
  const modelFor = (role: ModelRole): Promise<ModelHandle> => {
    const id = role === "default" ? model.id : (config.profiles[role] ?? model.id);
    let handle = byId.get(id);
    if (!handle) {
      handle = buildModel(id, config, env);
      byId.set(id, handle);
    }
    return handle;
  };
  let checkpoints: Promise<Checkpoints> | undefined;
  const openCheckpoints = () => {
    checkpoints ??= Checkpoints.open(workspace, { dataDir: dataDir(env) });
    return checkpoints;
  };
  const registry = new ToolRegistry(
    [...fileTools, ...exploreTools, ...commandTools, ...gitTools, ...dataTools, ...planTools].map((tool) =>
      withCheckpoints(tool, openCheckpoints, () => ({ session: id, label: session.stepLabel })),
    ),
    config.tools,
  );
  const session: AgentSession = {
    id,
    mode: options.mode,
    config,
    workspace,
    redact,
    bus,
    ledger: new UsageLedger(bus, { maxCostUsd: config.max_cost_usd, maxTokens: config.max_tokens }),
    model,
    registry,
    policy: new ApprovalPolicy({
      mode: config.approval ?? (options.ask ? "ask" : "auto-edit"),
      ask: options.ask,
      rules: config.rules,
      workspace,
      home: env.HOME || os.homedir(),
      sandbox,
      settings: config.sandbox,
      saveRules: (rules) =>
        saveWorkspaceRules(workspace, rules).catch((error: unknown) => {
          const why = error instanceof Error ? error.message : String(error);
          bus.emit({
            type: "error",
            message: `Could not save the rule in the workspace config: ${why}`,
            fatal: false,
          });
        }),
    }),
    toolContext: {
      workspace,
      extraRoots: config.workspace.extra_roots.map((root) => extraRoot(workspace, root)),
      signal,
      commandTimeoutMs: config.commands.timeout_ms,
      ...(sandbox.kind === "none"
        ? {}
        : {
            sandbox: {
              sandbox,
              tmpDir: sessionTmpDir(),
              network: config.sandbox.network,
              // Approval rules and sandbox settings: a command must not loosen them for later sessions.
              readOnly: [path.dirname(projectConfigFile(workspace))],
            },
          }),
      reads: new ReadTracker(),
      ...(options.askUser ? { ask: options.askUser } : {}),
      consult: (question) => consultStrongModel(session, question),
      setTodos: (todos) => {
        session.todos = todos;
        bus.emit({ type: "todos", todos });
      },
    },
    system: buildSystemPrompt({
      workspace,
      instructions: await loadProjectInstructions(workspace),
      ...(model.info.toolCalls === "text" ? { textTools: registry } : {}),
    }),
    signal,
    deadline,
    filesChanged: new Set(),
    todos: [],
    stepLabel: "task",
    startedAt: Date.now(),
    modelFor,
  };
  for (const event of options.resume?.events ?? []) {
    if (event.type === "tool.result")
      for (const file of event.changed_files ?? []) session.filesChanged.add(file);
    if (event.type === "todos") session.todos = event.todos;
  }
  session.ledger.restore((options.resume?.events ?? []).filter((e) => e.type === "usage"));
  return session;
}
