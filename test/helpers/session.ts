import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { parse, stringify } from "yaml";
import { openConversation } from "../../src/agent/conversation.js";
import { openHostedSession } from "../../src/agent/host.js";
import { Session } from "../../src/agent/session.js";
import { type ApprovalMode, type ConfigInput, configSchema } from "../../src/config/schema.js";
import type { Mode, StampedEvent } from "../../src/events/types.js";
import {
  type Script,
  type ScriptedServer,
  type ServedModels,
  startScriptedServer,
} from "../support/scriptedServer.js";
import { makeHome, makeRepo } from "./cli.js";
import { afterFile } from "./temp.js";

/**
 * A real `cairn do` session in `workspace`, its model the scripted server, with a home of its own:
 * for tests that drive the engine without the CLI around it.
 */
export async function scriptedSession(
  server: ScriptedServer,
  workspace: string,
  options: { approval: ApprovalMode; attended?: boolean },
): Promise<Session> {
  const home = await makeHome();
  const session = await Session.create({
    config: configSchema.parse({
      providers: { openai: { base_url: server.openaiBaseUrl } },
      approval: options.approval,
    }),
    modelId: "openai/gpt-4o",
    workspace,
    mode: "do",
    attended: options.attended ?? false,
    env: { OPENAI_API_KEY: "sk-test", HOME: home, XDG_DATA_HOME: path.join(home, "data") },
  });
  afterFile(() => session.close());
  return session;
}

/** Adds settings to the global config of a home made by makeHome (which may already hold some). */
export async function addGlobalConfig(home: string, config: ConfigInput): Promise<void> {
  const file = path.join(home, "config", "cairn", "config.yaml");
  await mkdir(path.dirname(file), { recursive: true });
  const before = (parse(await readFile(file, "utf8").catch(() => "")) ?? {}) as object;
  await writeFile(file, stringify({ ...before, ...config }));
}

const servers: ScriptedServer[] = [];
const closers: Array<() => Promise<void>> = [];

/** Something closeAll should stop: a server a test started. */
export function closeLater(close: () => Promise<void>): void {
  closers.push(close);
}

/** Closes the sessions and scripted servers of the tests so far; for afterEach. */
export async function closeAll(): Promise<void> {
  await Promise.all(closers.splice(0).map((close) => close()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
}

// Whatever a test file left open is closed once it is done, before its temp folders go.
afterFile(closeAll);

export interface SessionSetup {
  /** The global config; a function gets the repository's path (for servers started on it). */
  config?: ConfigInput | ((repo: string) => ConfigInput);
  files?: Record<string, string>;
  approval?: "ask" | "auto-edit" | "auto" | "read-only";
  attended?: boolean;
  format?: "openai" | "anthropic" | "ollama";
  /** More of the environment cairn starts with. */
  env?: Record<string, string>;
  /** The person trusts the repository (`--trust-workspace`): what its own files ask for applies. */
  trust?: boolean;
  /** The scripted server also plays a local server describing its models (Ollama's /api/show, …). */
  serves?: ServedModels;
}

/** The model each wire format's session runs on. */
const MODELS = {
  openai: "openai/gpt-4o",
  anthropic: "anthropic/claude-sonnet-4-5",
  ollama: "ollama/qwen2.5-coder:7b",
} as const;

/** A fresh repository and home (or the ones given) with a scripted model, as a session is opened on them. */
async function scriptedSetup(script: Script, setup: SessionSetup & { home?: string; repo?: string }) {
  const server = await startScriptedServer(script, setup.serves ? { models: setup.serves } : {});
  servers.push(server);
  const [repo, home] = await Promise.all([
    setup.repo ?? makeRepo(setup.files ?? { "README.md": "hello\n" }),
    setup.home ?? makeHome(),
  ]);
  await addGlobalConfig(home, typeof setup.config === "function" ? setup.config(repo) : (setup.config ?? {}));
  const format = setup.format ?? "openai";
  const anthropic = format === "anthropic";
  const env = {
    ...(anthropic ? { ANTHROPIC_API_KEY: "sk-ant-test" } : { OPENAI_API_KEY: "sk-test" }),
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, "config"),
    XDG_DATA_HOME: path.join(home, "data"),
    ...setup.env,
  };
  const options = {
    cwd: repo,
    flags: {
      model: MODELS[format],
      baseUrl: {
        openai: server.openaiBaseUrl,
        anthropic: server.anthropicBaseUrl,
        ollama: server.ollamaBaseUrl,
      }[format],
      approval: setup.approval ?? "auto",
    },
    attended: setup.attended ?? false,
    env,
    trust: { flag: setup.trust ?? false },
  };
  return { server, repo, home, options };
}

/** A stored session on a fresh repository and home, against a scripted model, with its events collected. */
export async function hostedSession(script: Script, setup: SessionSetup = {}) {
  const { server, repo, home, options } = await scriptedSetup(script, setup);
  const hosted = await openHostedSession({ ...options, mode: "do" });
  closers.push(hosted.close);
  const events: StampedEvent[] = [];
  hosted.session.bus.subscribe((event) => events.push(event));
  return { ...hosted, server, repo, home, events };
}

/**
 * A conversation — the one door every front end drives cairn through — on a fresh repository and
 * home (or the `home` and `repo` of an earlier one, to resume it), against a scripted model, with
 * its events collected.
 */
export async function hostedConversation(
  script: Script,
  setup: SessionSetup & { mode?: Mode; home?: string; repo?: string } = {},
) {
  const { server, repo, home, options } = await scriptedSetup(script, setup);
  const conversation = await openConversation({ ...options, mode: setup.mode ?? "chat" });
  closers.push(() => conversation.close());
  const events: StampedEvent[] = [];
  conversation.subscribe((event) => events.push(event));
  return { conversation, server, repo, home, events };
}

/** The names of the tools a recorded OpenAI-style request offered. */
export const offeredTools = (body: {
  tools?: Array<{ function?: { name: string }; name?: string }>;
}): string[] => (body.tools ?? []).map((t) => t.function?.name ?? t.name ?? "");

/** The tools a recorded request names in tool_search's description, to be loaded on demand. */
export const onDemandTools = (body: {
  tools?: Array<{ function?: { name: string; description: string }; name?: string; description?: string }>;
}): string[] => {
  const search = (body.tools ?? []).find((t) => (t.function?.name ?? t.name) === "tool_search");
  const description = search?.function?.description ?? search?.description ?? "";
  // cairn's own tools a line each; an MCP server's by name on one line, `- server__: a, b`.
  return [...description.matchAll(/^- (\S+): (.*)$/gm)].flatMap(([, name, rest]) =>
    name!.endsWith("__") ? rest!.split(", ").map((tool) => `${name}${tool}`) : [name!],
  );
};

/** What the model was sent as the result of its last tool call (OpenAI chat format). */
// biome-ignore lint/suspicious/noExplicitAny: request bodies are the provider's JSON
export const lastToolResult = (body: any): string => String(body.messages.at(-1)?.content ?? "");
