import { statSync } from "node:fs";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import {
  type AgentContext,
  type AgentRequestContext,
  agent,
  type ClientCapabilities,
  type InitializeRequest,
  type InitializeResponse,
  type ListSessionsRequest,
  type ListSessionsResponse,
  type LoadSessionRequest,
  type NewSessionRequest,
  ndJsonStream,
  PROTOCOL_VERSION,
  RequestError,
  type SetSessionModeRequest,
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
import { readableStack } from "../platform/stack.js";
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

/** Every handler: the person's mistakes as errors they can read; anything else logged in full. */
function handler(log: (message: string) => void) {
  return <P, R>(work: (params: P) => Promise<R>) =>
    async (context: AgentRequestContext<P>): Promise<R> => {
      try {
        return await work(context.params);
      } catch (error) {
        const said = asRequestError(error);
        if (!(said instanceof RequestError))
          log(`${context.method} failed: ${error instanceof Error ? readableStack(error) : String(error)}`);
        throw said;
      }
    };
}

/**
 * What `cairn acp` keeps between the editor's requests: its sessions, the editor's capabilities,
 * and the connection to the editor once it is made. One method per request.
 */
class AcpAgent {
  private readonly options: AcpServerOptions;
  private readonly env: NodeJS.ProcessEnv;
  private readonly sessions = new Map<string, AcpSession>();
  private capabilities: ClientCapabilities | undefined;
  /** The editor, once connected: what sessions send their updates and requests to. */
  client: AgentContext | undefined;

  constructor(options: AcpServerOptions) {
    this.options = options;
    this.env = options.env ?? process.env;
  }

  async configFor(cwd: string): Promise<Config> {
    const { configFile, flags } = this.options;
    return (await loadConfig({ cwd, ...(configFile ? { configFile } : {}), flags, env: this.env })).config;
  }

  async initialize(params: InitializeRequest): Promise<InitializeResponse> {
    this.capabilities = params.clientCapabilities;
    const config = await this.configFor(this.options.cwd).catch(() => undefined);
    const missing = config && missingKey(config, this.env);
    return {
      protocolVersion: PROTOCOL_VERSION,
      agentCapabilities: {
        loadSession: true,
        // cairn's chat takes text, @-mentions embedded with their text, links to files, and
        // images when the model takes them: the config's model, as sessions' models are
        // known only once they open (an image a session's model cannot read is named to it).
        promptCapabilities: { image: takesImages(config, this.env), audio: false, embeddedContext: true },
        sessionCapabilities: { list: {}, close: {} },
      },
      authMethods: config ? authMethods(missing, config) : [],
      agentInfo: { name: "cairn", title: "cairn", version: this.options.version },
    };
  }

  /** Says what is missing: an API key is the editor's to give. */
  async authenticate(cwd = this.options.cwd): Promise<Record<string, never>> {
    const missing = missingKey(await this.configFor(projectFolder(cwd)), this.env);
    if (missing)
      throw RequestError.authRequired({ variables: missing.wanted.map((w) => w.variable) }, missing.message);
    return {};
  }

  /**
   * Opens a session, once the key it needs is there. An editor that keeps its own trust of
   * folders says so for the session (`editorTrusts`).
   */
  private async open(cwd: string, meta: unknown, resume?: Parameters<typeof AcpSession.open>[1]) {
    await this.authenticate(cwd);
    const { client } = this;
    if (!client) throw new Error("a session was asked for before the editor was connected");
    const sessionOptions: AcpSessionOptions = {
      client,
      capabilities: this.capabilities,
      cwd: projectFolder(cwd),
      configFile: this.options.configFile,
      flags: this.options.flags,
      trustWorkspace: Boolean(this.options.trustWorkspace) || editorTrusts(meta),
      env: this.env,
      debugLog: this.options.debugLog,
      log: this.options.log,
    };
    const session = await AcpSession.open(sessionOptions, resume);
    await this.sessions.get(session.id)?.close();
    this.sessions.set(session.id, session);
    setImmediate(() => session.announceCommands());
    return session;
  }

  async newSession(params: NewSessionRequest) {
    const session = await this.open(params.cwd, params._meta);
    return { sessionId: session.id, modes: session.modes() };
  }

  async loadSession(params: LoadSessionRequest) {
    const store = Store.open(storePath(this.env));
    let events: ReturnType<Store["events"]>;
    try {
      if (!store.getSession(params.sessionId)) throw RequestError.sessionNotFound(params.sessionId);
      events = store.events(params.sessionId);
    } finally {
      store.close();
    }
    const session = await this.open(params.cwd, params._meta, params.sessionId);
    session.replay(events);
    return { modes: session.modes() };
  }

  async listSessions(params: ListSessionsRequest): Promise<ListSessionsResponse> {
    const store = Store.open(storePath(this.env));
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
          // A thread opened and never written in has no title yet.
          ...(info.task.trim() ? { title: info.task.replace(/\s+/g, " ").slice(0, 80) } : {}),
          updatedAt: info.updated_at,
        })),
        ...(from + PAGE < all.length ? { nextCursor: String(from + PAGE) } : {}),
      };
    } finally {
      store.close();
    }
  }

  session(id: string): AcpSession {
    const session = this.sessions.get(id);
    if (!session) throw RequestError.sessionNotFound(id);
    return session;
  }

  async setMode(params: SetSessionModeRequest): Promise<Record<string, never>> {
    const session = this.session(params.sessionId);
    if (!APPROVAL_MODES.includes(params.modeId as ApprovalMode))
      throw RequestError.invalidParams(
        { modeId: params.modeId },
        `the modes are ${APPROVAL_MODES.join(", ")}, not ${params.modeId}`,
      );
    session.setMode(params.modeId as ApprovalMode);
    return {};
  }

  async closeSession(id: string): Promise<Record<string, never>> {
    await this.session(id).close();
    this.sessions.delete(id);
    return {};
  }

  cancel(id: string): void {
    this.sessions.get(id)?.cancel();
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.sessions.values()].map((session) => session.close()));
  }
}

/** The input the editor sends, each line held to the config's `max_message_bytes`. */
async function limitedInput(
  acp: AcpAgent,
  options: AcpServerOptions,
): Promise<{ input: Readable; maxBytes: number }> {
  // A config that cannot load is reported when a session opens; the limit is then the default.
  const maxBytes = await acp.configFor(options.cwd).then(
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
  return { input, maxBytes };
}

/**
 * `cairn acp`: an Agent Client Protocol agent over the given streams, until the editor closes
 * them. Each ACP session is a cairn chat on the editor's project folder; see session.ts.
 */
export async function serveAcp(options: AcpServerOptions): Promise<void> {
  const acp = new AcpAgent(options);
  const handle = handler(options.log);
  const app = agent({ name: "cairn" })
    .onRequest(
      "initialize",
      handle((params) => acp.initialize(params)),
    )
    .onRequest(
      "authenticate",
      handle(() => acp.authenticate()),
    )
    .onRequest(
      "session/new",
      handle((params) => acp.newSession(params)),
    )
    .onRequest(
      "session/load",
      handle((params) => acp.loadSession(params)),
    )
    .onRequest(
      "session/list",
      handle((params) => acp.listSessions(params)),
    )
    .onRequest(
      "session/prompt",
      handle((params) => acp.session(params.sessionId).prompt(params.prompt)),
    )
    .onRequest(
      "session/set_mode",
      handle((params) => acp.setMode(params)),
    )
    .onRequest(
      "session/close",
      handle((params) => acp.closeSession(params.sessionId)),
    )
    .onNotification("session/cancel", ({ params }) => acp.cancel(params.sessionId));
  const { input, maxBytes } = await limitedInput(acp, options);
  const connection = app.connect(
    ndJsonStream(
      Writable.toWeb(options.output) as WritableStream<Uint8Array>,
      Readable.toWeb(input) as ReadableStream<Uint8Array>,
      // Lines never reach the SDK's own limit, which would end the connection.
      { maxMessageBytes: maxBytes + 1 },
    ),
  );
  acp.client = connection.client;
  await connection.closed;
  await acp.closeAll();
}
