import path from "node:path";
import { type ConfigFlags, loadConfig } from "../config/load.js";
import type { Config } from "../config/schema.js";
import type { EventListener } from "../events/bus.js";
import type { Mode } from "../events/types.js";
import { resolveModelId } from "../model/providers.js";
import { storePath } from "../store/db.js";
import { Store } from "../store/sessions.js";
import type { EditorAccess } from "../tools/types.js";
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
  /** What the editor the sessions run in lends their tools (`cairn acp`). */
  editor?: EditorAccess;
}

/** Sessions on one workspace and configuration, each stored as it runs. */
export interface Host {
  config: Config;
  store: Store;
  /** A new session, or a stored one continued; its events reach the store first, then the adapters. */
  open(resume?: ResumedLog): Promise<Session>;
  /** Closes the store at once, then waits for the sessions to stop what they started (MCP servers). */
  close(): Promise<void>;
}

/**
 * The one way a front end (the CLI, the terminal UI, an editor, the HTTP server, a batch worker)
 * gets sessions: the configuration loaded and merged for the workspace, the model resolved, and
 * the store subscribed before anything else, so every event is on disk before it is shown or
 * acted on.
 */
export async function openHost(options: HostOptions): Promise<Host> {
  const env = options.env ?? process.env;
  const cwd = path.resolve(options.cwd);
  const { config, workspaceServers } = await loadConfig({
    cwd,
    ...(options.configFile ? { configFile: options.configFile } : {}),
    ...(options.flags ? { flags: options.flags } : {}),
    env,
  });
  const modelId = resolveModelId(config, env);
  const store = Store.open(storePath(env));
  const sessions = new Set<Session>();
  return {
    config,
    store,
    async open(resume) {
      const session = await Session.create({
        config,
        modelId,
        workspace: cwd,
        mode: options.mode,
        attended: options.attended,
        env,
        workspaceServers,
        ...(resume ? { resume } : {}),
        ...(options.recordedWorkspace ? { recordedWorkspace: options.recordedWorkspace } : {}),
        ...(options.editor ? { editor: options.editor } : {}),
      });
      session.bus.subscribe((event) => store.appendEvent(event));
      for (const adapter of options.adapters ?? []) session.bus.subscribe(adapter);
      sessions.add(session);
      return session;
    },
    close() {
      const stopping = Promise.all([...sessions].map((session) => session.close()));
      sessions.clear();
      store.close();
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
