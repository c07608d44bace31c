import { statSync } from "node:fs";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import {
  type AgentRequestContext,
  agent,
  type ClientCapabilities,
  type ListSessionsResponse,
  ndJsonStream,
  PROTOCOL_VERSION,
  RequestError,
} from "@agentclientprotocol/sdk";
import { withStoredKeys } from "../config/credentials.js";
import { type ConfigFlags, loadConfig } from "../config/load.js";
import {
  APPROVAL_MODES,
  type ApprovalMode,
  type Config,
  DEFAULT_MAX_MESSAGE_BYTES,
} from "../config/schema.js";
import { realFolder } from "../config/trust/decide.js";
import { modelInfo } from "../model/catalog.js";
import { ProviderError } from "../model/errors.js";
import { resolveModelId } from "../model/providers.js";
import { ConfigError } from "../platform/errors.js";
import { LineLimit, refusalOf } from "../platform/lineLimit.js";
import { StoreError, storePath } from "../store/db.js";
import { Store } from "../store/sessions.js";
import { describeSize } from "../tools/fileText.js";
import { authMethods, missingKey } from "./auth.js";
import { AcpSession, type AcpSessionOptions } from "./session.js";

export interface AcpServerOptions {
  /** cairn's version, told to the editor. */
  version: string;
  /** The folder whose config says, before any session, whether an API key is missing. */
  cwd: string;
  /** `--config <file>`, and the flags `cairn acp` was started with: for every session. */
  configFile?: string | undefined;
  flags: ConfigFlags;
  /** `cairn acp --trust-workspace`: every session's folder is trusted (docs/security.md#trust). */
  trustWorkspace?: boolean | undefined;
  env?: NodeJS.ProcessEnv;
  /** `--debug-log FILE`, for every session. */
  debugLog?: string | undefined;
  /** The protocol's streams: stdin and stdout, which nothing else may write. */
  input: Readable;
  output: Writable;
  /** cairn's log: stderr. */
  log: (message: string) => void;
}

/** Sessions listed per `session/list` page. */
const PAGE = 50;

/** A mistake the person can fix (a bad config, an unknown session), said as the protocol's error. */
function asRequestError(error: unknown): unknown {
  if (error instanceof ConfigError || error instanceof StoreError || error instanceof ProviderError)
    return new RequestError(-32603, error.message);
  return error;
}

/** Whether the model the config chooses (or an API key in the environment, or a stored one, picks) takes images. */
function takesImages(config: Config | undefined, env: NodeJS.ProcessEnv): boolean {
  if (!config) return false;
  try {
    return modelInfo(resolveModelId(config, withStoredKeys(env, config)), config).images;
  } catch {
    return false;
  }
}

/**
 * Whether the editor says the person trusts the session's folder: `{"_meta": {"cairn":
 * {"trustWorkspace": true}}}` on `session/new` or `session/load`, for an editor that asks its
 * own question (VS Code's workspace trust, Emacs's trusted-content). Nothing else counts.
 */
function editorTrusts(meta: unknown): boolean {
  const cairn =
    typeof meta === "object" && meta !== null ? (meta as Record<string, unknown>).cairn : undefined;
  return (
    typeof cairn === "object" && cairn !== null && (cairn as Record<string, unknown>).trustWorkspace === true
  );
}

/** The editor's project folder, which must be an absolute path to a folder. */
function projectFolder(cwd: string): string {
  const isFolder = path.isAbsolute(cwd) && statSync(cwd, { throwIfNoEntry: false })?.isDirectory();
  if (!isFolder)
    throw RequestError.invalidParams({ cwd }, `cwd must be the absolute path of a folder: ${cwd}`);
  return cwd;
}

/**
 * `cairn acp`: an Agent Client Protocol agent over the given streams, until the editor closes
 * them. Each ACP session is a cairn chat on the editor's project folder; see session.ts.
 */
export async function serveAcp(options: AcpServerOptions): Promise<void> {
  const env = options.env ?? process.env;
  const sessions = new Map<string, AcpSession>();
  let capabilities: ClientCapabilities | undefined;

  const configFor = async (cwd: string) =>
    (
      await loadConfig({
        cwd,
        ...(options.configFile ? { configFile: options.configFile } : {}),
        flags: options.flags,
        env,
      })
    ).config;

  const sessionOptions = (cwd: string, trusted: boolean): AcpSessionOptions => ({
    client: connection.client,
    capabilities,
    cwd: projectFolder(cwd),
    configFile: options.configFile,
    flags: options.flags,
    trustWorkspace: Boolean(options.trustWorkspace) || trusted,
    env,
    debugLog: options.debugLog,
    log: options.log,
  });

  /**
   * Opens a session, or says what is missing: an API key is the editor's to give (auth). An
   * editor that keeps its own trust of folders says so for the session (`editorTrusts`).
   */
  const open = async (cwd: string, meta: unknown, resume?: Parameters<typeof AcpSession.open>[1]) => {
    const missing = missingKey(await configFor(projectFolder(cwd)), env);
    if (missing)
      throw RequestError.authRequired({ variables: missing.wanted.map((w) => w.variable) }, missing.message);
    const session = await AcpSession.open(sessionOptions(cwd, editorTrusts(meta)), resume);
    await sessions.get(session.id)?.close();
    sessions.set(session.id, session);
    return session;
  };

  const sessionFor = (id: string): AcpSession => {
    const session = sessions.get(id);
    if (!session) throw RequestError.sessionNotFound(id);
    return session;
  };

  /** Every handler: the person's mistakes as errors they can read; anything else logged in full. */
  const handle =
    <P, R>(work: (context: AgentRequestContext<P>) => Promise<R>) =>
    async (context: AgentRequestContext<P>): Promise<R> => {
      try {
        return await work(context);
      } catch (error) {
        const said = asRequestError(error);
        if (!(said instanceof RequestError))
          options.log(
            `${context.method} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
          );
        throw said;
      }
    };

  const app = agent({ name: "cairn" })
    .onRequest(
      "initialize",
      handle(async ({ params }) => {
        capabilities = params.clientCapabilities;
        const config = await configFor(options.cwd).catch(() => undefined);
        const missing = config && missingKey(config, env);
        return {
          protocolVersion: PROTOCOL_VERSION,
          agentCapabilities: {
            loadSession: true,
            // cairn's chat takes text, @-mentions embedded with their text, links to files, and
            // images when the model takes them: the config's model, as sessions' models are
            // known only once they open (an image a session's model cannot read is named to it).
            promptCapabilities: { image: takesImages(config, env), audio: false, embeddedContext: true },
            sessionCapabilities: { list: {}, close: {} },
          },
          authMethods: authMethods(missing),
          agentInfo: { name: "cairn", title: "cairn", version: options.version },
        };
      }),
    )
    .onRequest(
      "authenticate",
      handle(async () => {
        const missing = missingKey(await configFor(options.cwd), env);
        if (missing)
          throw RequestError.authRequired(
            { variables: missing.wanted.map((w) => w.variable) },
            missing.message,
          );
        return {};
      }),
    )
    .onRequest(
      "session/new",
      handle(async ({ params }) => {
        const session = await open(params.cwd, params._meta);
        setImmediate(() => session.announceCommands());
        return { sessionId: session.id, modes: session.modes() };
      }),
    )
    .onRequest(
      "session/load",
      handle(async ({ params }) => {
        const store = Store.open(storePath(env));
        let events: ReturnType<Store["events"]>;
        try {
          if (!store.getSession(params.sessionId)) throw RequestError.sessionNotFound(params.sessionId);
          events = store.events(params.sessionId);
        } finally {
          store.close();
        }
        const session = await open(params.cwd, params._meta, { id: params.sessionId, events });
        session.replay(events);
        setImmediate(() => session.announceCommands());
        return { modes: session.modes() };
      }),
    )
    .onRequest(
      "session/list",
      handle(async ({ params }): Promise<ListSessionsResponse> => {
        const store = Store.open(storePath(env));
        try {
          // Sessions are stored under the workspace's real path, which a symlinked folder is not.
          const workspace = params.cwd && realFolder(params.cwd);
          const all = store.listSessions(workspace ? { workspace } : {});
          const from = Number(params.cursor ?? 0) || 0;
          const page = all.slice(from, from + PAGE);
          return {
            sessions: page.map((info) => ({
              sessionId: info.id,
              cwd: info.workspace,
              title: info.task.replace(/\s+/g, " ").slice(0, 80),
              updatedAt: info.updated_at,
            })),
            ...(from + PAGE < all.length ? { nextCursor: String(from + PAGE) } : {}),
          };
        } finally {
          store.close();
        }
      }),
    )
    .onRequest(
      "session/prompt",
      handle(async ({ params }) => sessionFor(params.sessionId).prompt(params.prompt)),
    )
    .onRequest(
      "session/set_mode",
      handle(async ({ params }) => {
        const session = sessionFor(params.sessionId);
        if (!APPROVAL_MODES.includes(params.modeId as ApprovalMode))
          throw RequestError.invalidParams(
            { modeId: params.modeId },
            `the modes are ${APPROVAL_MODES.join(", ")}, not ${params.modeId}`,
          );
        session.setMode(params.modeId as ApprovalMode);
        return {};
      }),
    )
    .onRequest(
      "session/close",
      handle(async ({ params }) => {
        await sessionFor(params.sessionId).close();
        sessions.delete(params.sessionId);
        return {};
      }),
    )
    .onNotification("session/cancel", ({ params }) => {
      sessions.get(params.sessionId)?.cancel();
    });

  // A config that cannot load is reported when a session opens; the limit is then the default.
  const maxBytes = await configFor(options.cwd).then(
    (config) => config.max_message_bytes,
    () => DEFAULT_MAX_MESSAGE_BYTES,
  );
  const input = options.input.pipe(
    new LineLimit(maxBytes, (line) => {
      const limit = `the ${describeSize(maxBytes)} limit of cairn acp (max_message_bytes)`;
      options.log(`refused a message of ${line.bytes} bytes from the editor: over ${limit}.`);
      const refusal = refusalOf(line, limit);
      if (refusal) options.output.write(refusal);
    }),
  );
  const connection = app.connect(
    ndJsonStream(
      Writable.toWeb(options.output) as WritableStream<Uint8Array>,
      Readable.toWeb(input) as ReadableStream<Uint8Array>,
      // Lines never reach the SDK's own limit, which would end the connection.
      { maxMessageBytes: maxBytes + 1 },
    ),
  );
  await connection.closed;
  await Promise.all([...sessions.values()].map((session) => session.close()));
}
