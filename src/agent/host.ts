import path from "node:path";
import { loadAgents } from "../agents/files.js";
import { withStoredKeys } from "../config/credentials.js";
import { type ConfigFlags, loadConfig, type TrustOptions } from "../config/load.js";
import type { Config } from "../config/schema.js";
import type { AskTrust, WorkspaceTrust } from "../config/trust/decide.js";
import type { EventListener } from "../events/bus.js";
import type { Mode } from "../events/types.js";
import { loadCustomCommands } from "../extensions/customCommands.js";
import { loadSkills } from "../extensions/skills.js";
import {
  MissingKeyError,
  missingKeyMessage,
  missingKeyVariable,
  parseModelId,
  resolveModelId,
} from "../model/providers.js";
import { storePath } from "../store/db.js";
import { Store } from "../store/sessions.js";
import type { EditorAccess } from "../tools/types.js";
import { NO_MODEL } from "./noModel.js";
import { type ResumedLog, Session } from "./session.js";

export interface HostOptions {
  /** The workspace. */
  cwd: string;
  /** `--config <file>`. */
  configFile?: string | undefined;
  flags?: ConfigFlags;
  env?: NodeJS.ProcessEnv;
  mode: Mode;
  /** A person can answer approvals and questions; otherwise what would be asked is refused. */
  attended: boolean;
  /** Listens to every event after the store has it: renderers, protocol bridges. */
  adapters?: EventListener[];
  /** The workspace its sessions are recorded under, when not `cwd` (a batch's task: see Session). */
  recordedWorkspace?: string;
  /**
   * How the workspace's own files are trusted: `flag` for `--trust-workspace` (or a batch task the
   * batch file trusts), `ask` to ask a person at a terminal. Trust is decided for
   * `recordedWorkspace` when there is one: a batch task's copy is trusted as its repository is.
   */
  trust?: { flag?: boolean | undefined; ask?: AskTrust | undefined };
  /** What the editor the sessions run in lends their tools (`cairn acp`). */
  editor?: EditorAccess;
  /** `--debug-log FILE`: each session appends its events and model-call summaries there. */
  debugLog?: string | undefined;
  /** Where the sessions are recorded: the caller's store, which the caller closes; the host's own otherwise. */
  store?: Store;
  /**
   * The work needs no model (a tier-0 file command): when none is chosen, or the chosen one has
   * no key, its sessions run without one rather than stop before they begin.
   */
  modelOptional?: boolean;
}

/** Sessions on one workspace and configuration, each stored as it runs. */
export interface Host {
  config: Config;
  /** Whether the workspace is trusted, and what of its own files applied or was left out. */
  trust: WorkspaceTrust;
  store: Store;
  /**
   * A new session (with the id given, or a new one), or a stored one continued; its events reach
   * the store first, then the adapters.
   */
  open(resume?: ResumedLog, id?: string): Promise<Session>;
  /** Closes the store at once, then waits for the sessions to stop what they started (MCP servers). */
  close(): Promise<void>;
}

/**
 * What the workspace carries besides its config files, judged as its config is: its agent files,
 * custom commands and skills (asked about, hashed and left out with its config), each judged as
 * the session will load it, against the provider the person's own key (or stored key) goes to.
 */
export function workspaceContributions(cwd: string, env: NodeJS.ProcessEnv): TrustOptions["contributions"] {
  return async (narrowed) => {
    const keyed = withStoredKeys(env, narrowed);
    const carried = { trusted: false, config: narrowed };
    const catalogs = await Promise.all([
      loadAgents(cwd, keyed, carried),
      loadCustomCommands(cwd, keyed, carried),
      loadSkills(cwd, keyed, carried),
    ]);
    return catalogs.flatMap((catalog) => catalog.widening);
  };
}

/**
 * The model the sessions use, or, where the work needs none and none can be reached, why not:
 * the error a session that needs one stops with.
 */
function chooseModel(
  config: Config,
  env: NodeJS.ProcessEnv,
  optional: boolean,
): { modelId: string; absent?: MissingKeyError } {
  try {
    const modelId = resolveModelId(config, env);
    const missing = optional ? missingKeyVariable(modelId, config, env) : undefined;
    if (!missing) return { modelId };
    const { provider } = parseModelId(modelId);
    const absent = new MissingKeyError(missingKeyMessage(modelId, provider, missing), [
      { provider, variable: missing },
    ]);
    return { modelId, absent };
  } catch (error) {
    if (optional && error instanceof MissingKeyError) return { modelId: NO_MODEL, absent: error };
    throw error;
  }
}

/**
 * The one way a front end (the CLI, the terminal UI, an editor, the HTTP server, a batch worker)
 * gets sessions: the configuration loaded and merged for the workspace, the model resolved, and
 * the store subscribed before anything else, so every event is on disk before it is shown or
 * acted on.
 */
export async function openHost(options: HostOptions): Promise<Host> {
  const given = options.env ?? process.env;
  const cwd = path.resolve(options.cwd);
  const { config, workspaceServers, trust } = await loadConfig({
    cwd,
    ...(options.configFile ? { configFile: options.configFile } : {}),
    ...(options.flags ? { flags: options.flags } : {}),
    env: given,
    trust: {
      flag: options.trust?.flag ?? false,
      ...(options.recordedWorkspace ? { folder: options.recordedWorkspace } : {}),
      defaultApproval: options.attended ? "ask" : "auto-edit",
      contributions: workspaceContributions(cwd, given),
      ask: options.trust?.ask,
    },
  });
  // Keys stored with `cairn auth login` stand in for the ones the environment lacks.
  const env = withStoredKeys(given, config);
  const { modelId, absent } = chooseModel(config, env, options.modelOptional ?? false);
  const store = options.store ?? Store.open(storePath(env));
  const sessions = new Set<Session>();
  return {
    config,
    trust,
    store,
    async open(resume, id) {
      const session = await Session.create({
        config,
        modelId,
        ...(absent ? { modelAbsent: absent } : {}),
        workspace: cwd,
        mode: options.mode,
        attended: options.attended,
        env,
        workspaceServers,
        trust,
        ...(resume ? { resume } : {}),
        ...(id ? { id } : {}),
        ...(options.recordedWorkspace ? { recordedWorkspace: options.recordedWorkspace } : {}),
        ...(options.editor ? { editor: options.editor } : {}),
        ...(options.debugLog ? { debugLog: options.debugLog } : {}),
        store,
      });
      for (const adapter of options.adapters ?? []) session.bus.subscribe(adapter);
      sessions.add(session);
      return session;
    },
    close() {
      const stopping = Promise.all([...sessions].map((session) => session.close()));
      sessions.clear();
      if (!options.store) store.close();
      return stopping.then(() => undefined);
    },
  };
}

/** One session, hosted: what `cairn do`, `cairn run` and a resume need. */
export async function openHostedSession(
  options: HostOptions & { resume?: ResumedLog },
): Promise<{ session: Session; store: Store; close: () => Promise<void> }> {
  const host = await openHost(options);
  try {
    return { session: await host.open(options.resume), store: host.store, close: host.close };
  } catch (error) {
    await host.close();
    throw error;
  }
}
