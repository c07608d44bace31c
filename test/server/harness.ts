import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { stampedEventSchema } from "../../src/events/events.js";
import type { StampedEvent } from "../../src/events/types.js";
import { type RunningServer, startServer } from "../../src/server/start.js";
import { makeHome, makeRepo } from "../helpers/cli.js";
import { streamLineProblem } from "../helpers/protocol.js";
import { type Script, type ScriptedServer, startScriptedServer } from "../support/scriptedServer.js";

export const TOKEN = "test-token-0123456789abcdef";

/** One Server-Sent Event as the stream sent it. */
export interface SseMessage {
  id?: string;
  event?: string;
  data: string;
}

export interface TestServer {
  server: RunningServer;
  model: ScriptedServer;
  /** The folder the server was started in: the first allowed workspace. */
  workspace: string;
  /** A folder allowed through config `server.workspaces`. */
  other: string;
  /** A folder no session may run in. */
  outside: string;
  home: string;
  env: Record<string, string>;
  /** What the server wrote to its own log; `close` fails on anything a test left in it. */
  logged: string[];
  /** A request with the token (unless the headers say otherwise). */
  call(method: string, route: string, body?: unknown, headers?: Record<string, string>): Promise<Response>;
  json<T = Record<string, unknown>>(
    method: string,
    route: string,
    body?: unknown,
  ): Promise<{ status: number; body: T }>;
  close(): Promise<void>;
}

/**
 * The real server on a free loopback port, over a store and config of its own, with sessions
 * pointed at the scripted model server.
 */
export async function startTestServer(
  script: Script,
  files: Record<string, string> = { "a.txt": "old\n" },
  /** More keys of the config's `server` section. */
  serverConfig: Record<string, number> = {},
) {
  const model = await startScriptedServer(script);
  const [workspace, other, outside, home] = await Promise.all([
    makeRepo(files),
    makeRepo({ "b.txt": "b\n" }),
    makeRepo({}),
    makeHome(),
  ]);
  const configDir = path.join(home, "config", "cairn");
  await mkdir(configDir, { recursive: true });
  const config = path.join(configDir, "config.yaml");
  const existing = await readFile(config, "utf8").catch(() => "");
  const more = Object.entries(serverConfig).map(([key, value]) => `  ${key}: ${value}\n`);
  await writeFile(config, `${existing}server:\n  workspaces: [${JSON.stringify(other)}]\n${more.join("")}`);
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, "config"),
    XDG_DATA_HOME: path.join(home, "data"),
    OPENAI_API_KEY: "sk-test",
    CAIRN_MODEL: "openai/gpt-4o",
    CAIRN_BASE_URL: model.openaiBaseUrl,
  };
  const logged: string[] = [];
  const server = await startServer({
    cwd: workspace,
    host: "127.0.0.1",
    port: 0,
    token: TOKEN,
    env,
    log: (message) => logged.push(message),
  });
  const call = (method: string, route: string, body?: unknown, headers: Record<string, string> = {}) =>
    fetch(new URL(route, server.url), {
      method,
      redirect: "manual",
      headers: {
        authorization: `Bearer ${TOKEN}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const harness: TestServer = {
    server,
    model,
    workspace,
    other,
    outside,
    home,
    env,
    logged,
    call,
    async json<T>(method: string, route: string, body?: unknown) {
      const response = await call(method, route, body);
      return { status: response.status, body: (await response.json()) as T };
    },
    async close() {
      await server.close();
      await model.close();
      if (logged.length) throw new Error(`the server logged: ${logged.join("\n")}`);
    },
  };
  return harness;
}

/** Reads a Server-Sent Events body message by message until `until` says stop or the stream ends. */
export async function readEvents(
  response: Response,
  until: (message: SseMessage, all: SseMessage[]) => boolean = () => false,
): Promise<SseMessage[]> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const messages: SseMessage[] = [];
  let buffer = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return messages;
      buffer += value;
      let end = buffer.indexOf("\n\n");
      while (end !== -1) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        end = buffer.indexOf("\n\n");
        const message: SseMessage = { data: "" };
        for (const line of block.split("\n")) {
          if (line.startsWith(":")) continue;
          const [field, ...rest] = line.split(":");
          const text = rest.join(":").replace(/^ /, "");
          if (field === "id") message.id = text;
          if (field === "event") message.event = text;
          if (field === "data") message.data = text;
        }
        if (block.split("\n").every((line) => line.startsWith(":"))) continue;
        messages.push(message);
        if (until(message, messages)) return messages;
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/** The events (not the end marker) of a stream, parsed and checked against the protocol's schema. */
export function eventsOf(messages: SseMessage[]): StampedEvent[] {
  return messages
    .filter((m) => m.event === undefined)
    .map((m) => {
      const json: unknown = JSON.parse(m.data);
      const problem = streamLineProblem(json);
      if (problem) throw new Error(`an event does not fit the protocol: ${problem}\n${m.data}`);
      return stampedEventSchema.parse(json);
    });
}

/** The last event of a stream, which must be of the type given. */
export function lastOf<T extends StampedEvent["type"]>(
  messages: SseMessage[],
  type: T,
): Extract<StampedEvent, { type: T }> {
  const last = eventsOf(messages).at(-1);
  if (last?.type !== type) throw new Error(`the stream ended with ${last?.type}, not ${type}`);
  return last as Extract<StampedEvent, { type: T }>;
}

/** Waits until the session has left the server (its stream ends), and returns it as the API shows it then. */
export async function settled(harness: TestServer, id: string): Promise<Record<string, unknown>> {
  await readEvents(await harness.call("GET", `/api/sessions/${id}/events`), (m) => m.event === "end");
  const { body } = await harness.json<{ session: Record<string, unknown> }>("GET", `/api/sessions/${id}`);
  return body.session;
}
