import { stat } from "node:fs/promises";
import path from "node:path";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { CallToolResult, ServerNotification } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { type Conversation, openConversation } from "../agent/conversation.js";
import { missingKeyProblem } from "../config/credentials.js";
import { type ConfigFlags, loadConfig } from "../config/load.js";
import { runResultSchema } from "../events/result.js";
import type { RunResult, StampedEvent } from "../events/types.js";
import { ProviderError } from "../model/errors.js";
import { MissingKeyError } from "../model/providers.js";
import { ConfigError } from "../platform/errors.js";
import { LineLimit, refusalOf } from "../platform/lineLimit.js";
import { describeSize } from "../tools/fileText.js";
import { describeEvent } from "../ui/eventLines.js";
import { warnUntrusted } from "../ui/trustNotice.js";
import { CLIENT_INFO } from "./connection.js";

export interface ServeOptions {
  /** The folder a task's `cwd` is taken from (`--cwd`, else where cairn started). */
  cwd: string;
  configFile?: string | undefined;
  env?: NodeJS.ProcessEnv;
}

/** What both tools take first: the task, and where. */
const taskFields = {
  task: z.string().min(1).describe("What to do, in plain words"),
  cwd: z.string().optional().describe("The repository folder (default: where cairn mcp serve runs)"),
};

const verifyField = z.string().optional().describe('The command that checks the work, e.g. "npm test"');

/** What a client is told while cairn works: each tool call, and the plan, checks and review in their usual words. */
export function progressMessage(event: StampedEvent): string | undefined {
  switch (event.type) {
    case "tool.call":
      return event.title;
    // The client sent the task and gets the answer and the result when the call returns; the
    // model's streaming, thinking, spending and each call's output would only drown the rest.
    case "session.started":
    case "turn.started":
    case "status":
    case "todos":
    case "message.delta":
    case "reasoning":
    case "message":
    case "tool.result":
    case "usage":
    case "turn.finished":
    case "session.finished":
      return undefined;
    default:
      return describeEvent(event)
        .map((line) => line.text.trim())
        .join("; ");
  }
}

type Extra = {
  signal: AbortSignal;
  _meta?: { progressToken?: string | number } | undefined;
  sendNotification: (notification: ServerNotification) => Promise<void>;
};

/**
 * MCP clients start their servers with a bare environment (HOME, PATH, SHELL…), so the key in the
 * person's shell never reaches cairn: how to give it one, for the provider it wanted.
 */
function clientEnvironmentHint(error: MissingKeyError): string {
  const [first] = error.wanted;
  const variable = first?.variable ?? "<PROVIDER>_API_KEY";
  const provider = first?.provider ?? "<provider>";
  return (
    "MCP clients start cairn mcp serve with a minimal environment, so a key set in your shell does not reach it. " +
    `Give it in the client's config for cairn ("env": {"${variable}": "…"}), or store it once in a terminal ` +
    `with \`cairn auth login ${provider}\`.`
  );
}

const failure = (message: string): CallToolResult => ({
  content: [{ type: "text", text: message }],
  isError: true,
});

/**
 * Runs one task for a client: a stored, unattended session on the folder asked for, whose
 * approvals follow the config (what would be asked is refused, never waited for), reported as
 * progress notifications while it runs and answered with the result object.
 */
async function runForClient(
  options: ServeOptions,
  mode: "do" | "run",
  task: { task: string; cwd?: string | undefined; flags: ConfigFlags },
  extra: Extra,
): Promise<CallToolResult> {
  const cwd = path.resolve(options.cwd, task.cwd ?? ".");
  if (!(await stat(cwd).catch(() => undefined))?.isDirectory()) return failure(`cwd ${cwd} is not a folder.`);
  let progress = 0;
  const token = extra._meta?.progressToken;
  const report = (event: StampedEvent) => {
    const message = token === undefined ? undefined : progressMessage(event);
    if (message === undefined || token === undefined) return;
    void extra
      .sendNotification({
        method: "notifications/progress",
        params: { progressToken: token, progress: ++progress, message },
      })
      .catch(() => undefined);
  };
  let conversation: Conversation;
  try {
    conversation = await openConversation({
      cwd,
      configFile: options.configFile,
      flags: task.flags,
      mode,
      attended: false,
      ...(options.env ? { env: options.env } : {}),
      adapters: [report],
    });
  } catch (error) {
    if (error instanceof MissingKeyError) return failure(`${error.message}\n${clientEnvironmentHint(error)}`);
    if (error instanceof ConfigError || error instanceof ProviderError) return failure(error.message);
    throw error;
  }
  const { trust } = conversation.view();
  if (trust) warnUntrusted(trust);
  const cancel = () => void conversation.submit({ type: "interrupt", reason: "cancelled by the MCP client" });
  extra.signal.addEventListener("abort", cancel);
  try {
    const { result } = await conversation.submit({ type: "user_input", mode, text: task.task });
    await conversation.close();
    return {
      content: [{ type: "text", text: JSON.stringify(result, null, 2) }],
      structuredContent: result as RunResult & Record<string, unknown>,
    };
  } finally {
    extra.signal.removeEventListener("abort", cancel);
    await conversation.close();
  }
}

/**
 * `cairn mcp serve`: cairn as an MCP server on stdin/stdout, so Claude Code, Codex or any MCP
 * client can hand it a task. Resolves when the client goes away.
 */
export async function serveMcp(options: ServeOptions): Promise<void> {
  // A config that cannot load would fail every task alike: said once, at start, as bad usage.
  const { config } = await loadConfig({
    cwd: options.cwd,
    configFile: options.configFile,
    ...(options.env ? { env: options.env } : {}),
  });
  // No key either: said at once in the client's log of the server, and again to each task (which
  // may still name a model that needs none).
  const problem = missingKeyProblem(config, options.env ?? process.env);
  if (problem)
    process.stderr.write(`cairn mcp serve: ${problem.message}\n${clientEnvironmentHint(problem)}\n`);
  const server = new McpServer(CLIENT_INFO);
  const annotations = { readOnlyHint: false, destructiveHint: true, openWorldHint: true };
  server.registerTool(
    "cairn_do",
    {
      title: "cairn do",
      description:
        "Hand a coding task to cairn, an autonomous coding agent: it works in the repository with its own tools " +
        "(one tool loop, like `cairn do`) and returns the result: status, summary, files changed, cost. " +
        "It checks its change only with `verify`: without one, a change ends `unverified`.",
      inputSchema: {
        ...taskFields,
        model: z.string().optional().describe("A provider/model id, or a profile of cairn's config"),
        verify: verifyField,
      },
      outputSchema: runResultSchema.shape,
      annotations,
    },
    ({ task, cwd, model, verify }, extra) =>
      runForClient(options, "do", { task, cwd, flags: { model, verify } }, extra),
  );
  server.registerTool(
    "cairn_run",
    {
      title: "cairn run",
      description:
        "Hand a coding task to cairn to take to a verified finish (like `cairn run`): it plans, edits, runs the " +
        "project's checks, reviews its work and revises until the checks pass, then returns the result.",
      inputSchema: {
        ...taskFields,
        verify: verifyField,
        max_cost: z
          .number()
          .positive()
          .optional()
          .describe("Stop once the task has cost this many US dollars"),
      },
      outputSchema: runResultSchema.shape,
      annotations,
    },
    ({ task, cwd, verify, max_cost }, extra) =>
      runForClient(options, "run", { task, cwd, flags: { verify, maxCost: max_cost } }, extra),
  );
  const closed = new Promise<void>((resolve) => {
    server.server.onclose = resolve;
  });
  const maxBytes = config.max_message_bytes;
  const input = process.stdin.pipe(
    new LineLimit(maxBytes, (line) => {
      const limit = `the ${describeSize(maxBytes)} limit of cairn mcp serve (max_message_bytes)`;
      process.stderr.write(`cairn mcp serve: refused a message of ${line.bytes} bytes: over ${limit}.\n`);
      const refusal = refusalOf(line, limit);
      if (refusal) process.stdout.write(refusal);
    }),
  );
  // Lines never reach the SDK's own limit, which would drop whatever comes after.
  await server.connect(new StdioServerTransport(input, process.stdout, { maxBufferSize: maxBytes + 1 }));
  process.stdin.once("end", () => void server.close());
  await closed;
}
