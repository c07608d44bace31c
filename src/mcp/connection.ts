import { pathToFileURL } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  type CallToolResult,
  ErrorCode,
  ListRootsRequestSchema,
  McpError,
  type Tool as McpTool,
  type ReadResourceResult,
  type Resource,
} from "@modelcontextprotocol/sdk/types.js";
import { watchReplies } from "./replies.js";
import { describeFailure } from "./results.js";
import type { McpLaunch, McpServerSpec } from "./servers.js";

/** How cairn introduces itself to servers. */
export const CLIENT_INFO = { name: "cairn", version: "0.1.0" };

/** The end of what a local server wrote to stderr: usually why it stopped. */
const STDERR_KEPT = 2_000;

export interface ConnectionOptions {
  workspace: string;
  /** What a server over stdio starts from: the session's environment without secrets (safety/environment.ts). */
  serverEnv: Record<string, string>;
  /** The server announced a new list of tools (`notifications/tools/list_changed`); here is the new one. */
  onToolsChanged?: (tools: McpTool[]) => void;
  /** The connection ended without cairn closing it: the server exited or the remote went away. */
  onLost?: (reason: string) => void;
}

function transportFor(launch: McpLaunch, serverEnv: Record<string, string>, sse: boolean): Transport {
  if (launch.transport === "stdio") {
    return new StdioClientTransport({
      command: launch.command,
      args: launch.args,
      // What commands get (cairn's environment without its secrets), then the variables the
      // config gives it, which may name a secret on purpose (`GITHUB_TOKEN: ${GITHUB_TOKEN}`).
      env: { ...serverEnv, ...launch.env },
      cwd: launch.cwd,
      stderr: "pipe",
    });
  }
  const requestInit = { headers: launch.headers };
  return sse
    ? new SSEClientTransport(launch.url, { requestInit })
    : new StreamableHTTPClientTransport(launch.url, { requestInit });
}

/** One live connection to one MCP server over the official SDK's client. */
export class McpConnection {
  tools: McpTool[] = [];
  private closing = false;
  private stderrTail = "";
  /** A new list of tools being fetched after the server said it changed. */
  private refreshing: Promise<void> = Promise.resolve();
  /** What stops each request waiting for its answer. */
  private readonly waiting = new Set<AbortController>();

  readonly spec: McpServerSpec;
  private readonly client: Client;

  private constructor(spec: McpServerSpec, client: Client) {
    this.spec = spec;
    this.client = client;
  }

  /** What the server last wrote to stderr, for a message about why it stopped. */
  get stderr(): string {
    return this.stderrTail.trim();
  }

  /**
   * Starts (or reaches) the server, says hello and lists its tools, all within the server's
   * timeout. A remote server that does not speak Streamable HTTP is tried again over SSE.
   */
  static async open(
    spec: McpServerSpec,
    launch: McpLaunch,
    options: ConnectionOptions,
  ): Promise<McpConnection> {
    try {
      return await McpConnection.attempt(spec, launch, options, launch.transport === "sse");
    } catch (error) {
      // The SDK's advice for remote servers of the older protocol: a 4xx to Streamable HTTP means SSE.
      const status = ((error as Error).cause as { code?: unknown } | undefined)?.code;
      const older = typeof status === "number" && status >= 400 && status < 500;
      if (launch.transport !== "http" || !older) throw error;
      return McpConnection.attempt(spec, launch, options, true).catch(() => {
        throw error;
      });
    }
  }

  private static async attempt(
    spec: McpServerSpec,
    launch: McpLaunch,
    options: ConnectionOptions,
    sse: boolean,
  ): Promise<McpConnection> {
    const client = new Client(CLIENT_INFO, {
      capabilities: { roots: {} },
      listChanged: {
        // Listed by cairn itself, so that a call which changed the list returns only once the
        // new list is in: the very next request offers it.
        tools: {
          autoRefresh: false,
          debounceMs: 0,
          onChanged: () => connection.refresh(options.onToolsChanged),
        },
      },
    });
    client.setRequestHandler(ListRootsRequestSchema, () => ({
      roots: [{ uri: pathToFileURL(options.workspace).href, name: "workspace" }],
    }));
    const transport = transportFor(launch, options.serverEnv, sse);
    const connection = new McpConnection(spec, client);
    if (transport instanceof StdioClientTransport) {
      transport.stderr?.on("data", (chunk: Buffer) => {
        connection.stderrTail = (connection.stderrTail + chunk.toString("utf8")).slice(-STDERR_KEPT);
      });
    }
    try {
      await client.connect(transport, { timeout: spec.timeoutMs });
      connection.tools = await connection.listTools();
    } catch (error) {
      connection.closing = true;
      await client.close().catch(() => undefined);
      const said = connection.stderr
        ? ` (stderr: ${connection.stderr.split("\n").slice(-3).join(" | ")})`
        : "";
      throw new Error(`${describeFailure(error, launch, spec.timeoutMs)}${said}`, { cause: error });
    }
    if (transport instanceof StdioClientTransport) {
      watchReplies(transport, client, () => connection.failWaiting());
    }
    client.onclose = () => {
      if (connection.closing) return;
      connection.closing = true;
      const said = connection.stderr ? `: ${connection.stderr.split("\n").slice(-3).join(" | ")}` : "";
      options.onLost?.(
        `the connection closed${launch.transport === "stdio" ? " (the server exited)" : ""}${said}`,
      );
    };
    return connection;
  }

  private refresh(listener: ConnectionOptions["onToolsChanged"]): void {
    this.refreshing = this.listTools().then(
      (tools) => {
        this.tools = tools;
        listener?.(tools);
      },
      // The old list stays; a server that cannot list its tools will fail its calls and say so.
      () => undefined,
    );
  }

  private async listTools(): Promise<McpTool[]> {
    if (!this.client.getServerCapabilities()?.tools) return [];
    const tools: McpTool[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.client.listTools(cursor ? { cursor } : {}, { timeout: this.spec.timeoutMs });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    return tools;
  }

  get hasResources(): boolean {
    return Boolean(this.client.getServerCapabilities()?.resources);
  }

  async listResources(signal: AbortSignal): Promise<Resource[]> {
    if (!this.hasResources) return [];
    const resources: Resource[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.request(signal, (options) =>
        this.client.listResources(cursor ? { cursor } : {}, options),
      );
      resources.push(...page.resources);
      cursor = page.nextCursor;
    } while (cursor);
    return resources;
  }

  /**
   * A broken reply cannot say which request it answered: every request waiting on this server
   * fails at once, rather than waiting out its timeout for an answer that has come and gone.
   */
  private failWaiting(): void {
    const error = new McpError(
      ErrorCode.ParseError,
      "the server sent a reply that is not valid JSON-RPC (broken or cut-off JSON)",
    );
    for (const stop of this.waiting) stop.abort(error);
  }

  /** Runs one request, which a broken reply (see failWaiting) or `signal` ends. */
  private async request<T>(
    signal: AbortSignal,
    send: (options: {
      signal: AbortSignal;
      timeout: number;
      resetTimeoutOnProgress: boolean;
      onprogress: () => void;
    }) => Promise<T>,
  ): Promise<T> {
    const stop = new AbortController();
    this.waiting.add(stop);
    try {
      // A server that reports progress is still working: each report restarts its timeout.
      return await send({
        signal: AbortSignal.any([signal, stop.signal]),
        timeout: this.spec.timeoutMs,
        resetTimeoutOnProgress: true,
        onprogress: () => undefined,
      });
    } finally {
      this.waiting.delete(stop);
    }
  }

  async callTool(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult> {
    const result = await this.request(signal, (options) =>
      this.client.callTool({ name, arguments: args }, undefined, options),
    );
    await this.refreshing;
    return result as CallToolResult;
  }

  readResource(uri: string, signal: AbortSignal): Promise<ReadResourceResult> {
    return this.request(signal, (options) => this.client.readResource({ uri }, options));
  }

  async close(): Promise<void> {
    this.closing = true;
    await this.client.close().catch(() => undefined);
  }
}
