import type { ChildProcessByStdio } from "node:child_process";
import { Readable, Transform, Writable } from "node:stream";
import {
  type ClientApp,
  type ClientCapabilities,
  type ClientConnection,
  type ClientContext,
  type ContentBlock,
  client,
  ndJsonStream,
  type RequestPermissionRequest,
  type SessionNotification,
  type SessionUpdate,
} from "@agentclientprotocol/sdk";
import { afterEach } from "vitest";
import { type Script, type ScriptedServer, startScriptedServer } from "../support/scriptedServer.js";
import { type Format, modelFlags, spawnCairn } from "./cli.js";
import { scaled } from "./timeScale.js";

/** How the test's editor answers a permission request: the option id to pick, or undefined to cancel. */
export type PermissionAnswer = (request: RequestPermissionRequest) => string | undefined;

export interface AcpEditor {
  /** The SDK's client side, connected to `cairn acp` over its stdin and stdout. */
  agent: ClientContext;
  connection: ClientConnection;
  child: ChildProcessByStdio<Writable, Readable, Readable>;
  /** Every `session/update` received, in order. */
  updates: SessionNotification[];
  /** Every permission request received, in order. */
  permissions: RequestPermissionRequest[];
  /** Every line cairn wrote to stdout, as written. */
  stdout: string[];
  stderr: () => string;
  /** The updates of one kind, for one session. */
  updatesOf<K extends SessionUpdate["sessionUpdate"]>(
    sessionId: string,
    kind: K,
  ): Array<Extract<SessionUpdate, { sessionUpdate: K }>>;
  /** Closes stdin, as an editor does, and waits for cairn to exit; its exit code. */
  close(): Promise<number | null>;
}

export interface AcpEditorOptions {
  server: ScriptedServer;
  home: string;
  /** The wire format the model speaks (default OpenAI's). */
  format?: Format;
  /** Flags after `cairn acp` (the model flags are added). */
  args?: string[];
  /** More of cairn's environment (its keys, say), over the model's. */
  env?: Record<string, string>;
  answer?: PermissionAnswer;
  /** Registers further client methods (fs, terminals) on the editor. */
  extend?: (app: ClientApp) => ClientApp;
}

/**
 * An editor: the built `cairn acp` started as a child process, pointed at the scripted model
 * server, and the ACP SDK's own client connected to it, which records what cairn sends.
 */
export function startEditor(options: AcpEditorOptions): AcpEditor {
  const model = modelFlags(options.format ?? "openai", options.server);
  const child = spawnCairn(
    ["acp", ...model.args, ...(options.args ?? [])],
    {
      home: options.home,
      env: { ...model.env, ...options.env },
    },
    ["pipe", "pipe", "pipe"],
  ) as ChildProcessByStdio<Writable, Readable, Readable>;
  let stderr = "";
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  const stdout: string[] = [];
  let partial = "";
  const tap = new Transform({
    transform(chunk, _encoding, done) {
      const lines = (partial + String(chunk)).split("\n");
      partial = lines.pop() ?? "";
      stdout.push(...lines);
      done(null, chunk);
    },
  });
  child.stdout.pipe(tap);

  const updates: SessionNotification[] = [];
  const permissions: RequestPermissionRequest[] = [];
  let app = client({ name: "test editor" })
    .onNotification("session/update", ({ params }) => {
      updates.push(params);
    })
    .onRequest("session/request_permission", ({ params }) => {
      permissions.push(params);
      const optionId = options.answer?.(params);
      return { outcome: optionId ? { outcome: "selected", optionId } : { outcome: "cancelled" } };
    });
  if (options.extend) app = options.extend(app);
  const connection = app.connect(
    ndJsonStream(
      Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
      Readable.toWeb(tap) as ReadableStream<Uint8Array>,
    ),
  );
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  return {
    agent: connection.agent,
    connection,
    child,
    updates,
    permissions,
    stdout,
    stderr: () => stderr,
    updatesOf: (sessionId, kind) =>
      updates
        .filter((n) => n.sessionId === sessionId && n.update.sessionUpdate === kind)
        .map((n) => n.update) as never,
    async close() {
      child.stdin.end();
      const timer = setTimeout(() => child.kill("SIGKILL"), scaled(10_000));
      const code = await exited;
      clearTimeout(timer);
      connection.close();
      return code;
    },
  };
}

/** Initializes as an editor with these capabilities and opens a session in `cwd`. */
export async function openSession(editor: AcpEditor, cwd: string, capabilities: ClientCapabilities = {}) {
  const init = await editor.agent.request("initialize", {
    protocolVersion: 1,
    clientCapabilities: capabilities,
  });
  const session = await editor.agent.request("session/new", { cwd, mcpServers: [] });
  return { init, session };
}

/** What a test started, closed after it whatever became of it: the editor, then the model server. */
export class Stage {
  private server: ScriptedServer | undefined;
  private editor: AcpEditor | undefined;

  async serve(script: Script): Promise<ScriptedServer> {
    this.server = await startScriptedServer(script);
    return this.server;
  }

  /** An editor (cairn acp); a test that reopens one has the last one closed after it. */
  start(options: AcpEditorOptions): AcpEditor {
    this.editor = startEditor(options);
    return this.editor;
  }

  async close(): Promise<void> {
    await this.editor?.close();
    await this.server?.close();
    this.editor = this.server = undefined;
  }
}

/** A stage for each test of the file. */
export function stagePerTest(): Stage {
  const stage = new Stage();
  afterEach(() => stage.close());
  return stage;
}

/** A prompt of one text block. */
export const text = (value: string): ContentBlock[] => [{ type: "text", text: value }];
