import type { Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { McpServerConfig } from "../config/schema.js";
import { serverStartTool } from "../config/trust/servers.js";
import type { EventOf } from "../events/types.js";
import { passes } from "../tools/registry.js";
import { ToolError } from "../tools/toolError.js";
import { unknownTouches } from "../tools/touches.js";
import type { AnyTool, ToolSource } from "../tools/types.js";
import type { McpConnection } from "./connection.js";
import { type CatalogServer, genericTools, type McpCatalog } from "./generic.js";
import { describeFailure, resourceOutput, toolOutput } from "./results.js";
import { type McpServerSpec, serverSpecs } from "./servers.js";

/** Providers accept tool names of letters, digits, `_` and `-`, at most 64 long. */
function toolName(server: string, tool: string): string {
  return `${server}__${tool}`.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64);
}

/** The server's schema as a validator, so arguments are repaired and checked like any tool's. */
function validator(schema: McpTool["inputSchema"]): z.ZodType {
  try {
    return z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
  } catch {
    // A schema zod cannot read: any object goes, and the server judges it.
    return z.record(z.string(), z.unknown());
  }
}

/** A word for bash, quoted so that nothing in it is read as shell syntax. */
const shellWord = (word: string) =>
  /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;

/** A call of a server's tool, titled by its first text argument (a path, a query, a message). */
function describeArguments(args: unknown): string {
  const first = Object.values((args ?? {}) as Record<string, unknown>).find(
    (value) => typeof value === "string",
  );
  return typeof first === "string" ? first.replace(/\s+/g, " ").slice(0, 80) : "";
}

export type ServerStatus = "disabled" | "not started" | "not allowed" | "starting" | "ready" | "failed";

export interface ServerState {
  spec: McpServerSpec;
  status: ServerStatus;
  message?: string;
  connection?: McpConnection;
  /** The server's tools that its filter lets through, by their name on the server. */
  tools: Map<string, AnyTool>;
  /** The tools as last listed, to tell a real change from a repeated announcement. */
  signature?: string;
}

export interface McpToolsOptions {
  servers: Record<string, McpServerConfig>;
  workspace: string;
  /** Where `${VAR}` in a server's settings is read from. */
  env: NodeJS.ProcessEnv;
  /** What a server over stdio starts from, before its own `env`: the environment without secrets. */
  serverEnv: Record<string, string>;
  /**
   * With more MCP tools than this in all, each is offered on demand (`tool_search` names it until
   * the model loads it) rather than in full in every request; undefined: always in full.
   */
  deferAbove?: number | undefined;
  /** How servers that become ready or fail are told: the session's events. */
  report?: (event: EventOf<"mcp.server">) => void;
  /**
   * Servers defined by the workspace itself (`.mcp.json`, its `.cairn/config.yaml`), by name, with
   * the file that defines them: each is started only once `approve` allows it.
   */
  workspaceServers?: Record<string, string>;
  /**
   * Whether the person trusts the workspace: until they do, a `${VAR}` in the settings of a server
   * it defines is refused rather than filled from `env` (one their own rule lets start, say).
   */
  workspaceTrusted?: boolean;
  /** Puts the start of a workspace server to the approval policy; without it, none starts. */
  approve?: (
    request: ServerStartRequest,
  ) => Promise<{ allowed: true } | { allowed: false; reason: string; interrupted?: boolean }>;
}

/**
 * The start of a workspace server as the approval policy judges it: an `exec` outside the
 * sandbox, of its command line (a local server) or of a connection to its URL (a remote one).
 */
export interface ServerStartRequest {
  callId: string;
  tool: string;
  permission: "exec";
  summary: string;
  command?: { text: string; cwd: string };
  unconfined: true;
  /** The rule that lets exactly this server start, named when it is refused for want of a person. */
  allowRule: string;
  unseenByModel: true;
}

/**
 * The tools of the configured MCP servers, as a source of the session's tool registry. Servers
 * start when tools are first needed, all at once; one that fails to start, crashes or times out
 * is reported once and its tools are withdrawn, and the session goes on without it.
 */
export class McpTools implements ToolSource, McpCatalog {
  readonly servers: ServerState[];
  private readonly options: McpToolsOptions;
  private readonly listeners = new Set<() => void>();
  private readonly generic: AnyTool[];
  private started: Promise<void> | undefined;
  private closed = false;

  constructor(options: McpToolsOptions) {
    this.options = options;
    const sealed = new Set(options.workspaceTrusted ? [] : Object.keys(options.workspaceServers ?? {}));
    this.servers = serverSpecs(options.servers, options.workspace, options.env, sealed).map((spec) => ({
      spec,
      status: spec.enabled ? "not started" : "disabled",
      tools: new Map(),
    }));
    this.generic = this.servers.some((state) => state.spec.enabled) ? genericTools(this) : [];
  }

  tools(): AnyTool[] {
    const ready = this.servers.flatMap((state) =>
      state.status === "ready" ? [...state.tools.values()] : [],
    );
    const deferred = this.deferred();
    return [...this.generic, ...(deferred ? ready.map((tool) => ({ ...tool, deferrable: true })) : ready)];
  }

  /** Whether the servers' tools are offered on demand: there are more of them than `deferAbove`. */
  private deferred(): boolean {
    const limit = this.options.deferAbove;
    const count = this.servers.reduce((n, state) => n + (state.status === "ready" ? state.tools.size : 0), 0);
    return limit !== undefined && count > limit;
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }

  ready(): Promise<void> {
    this.started ??= this.startAll();
    return this.started;
  }

  /**
   * The person's own servers start at once; the workspace's are put to the approval policy one
   * at a time (a person answers one question after another), each starting once allowed.
   */
  private async startAll(): Promise<void> {
    const waiting = this.servers.filter((state) => state.status === "not started");
    const origins = this.options.workspaceServers ?? {};
    const own = waiting.filter((state) => origins[state.spec.name] === undefined);
    const starts = own.map((state) => this.start(state));
    let interrupted = false;
    for (const state of waiting.filter((s) => origins[s.spec.name] !== undefined)) {
      if (this.closed) break;
      const verdict = await this.allowed(state, origins[state.spec.name]!);
      // The person stopped the turn, not the servers: the rest are asked about next time.
      if (verdict === "interrupted") {
        interrupted = true;
        break;
      }
      if (verdict) starts.push(this.start(state));
    }
    await Promise.all(starts);
    if (interrupted) this.started = undefined;
  }

  /**
   * Whether the approval policy lets a workspace server start; reported once when not, and not at
   * all when the person's interrupt dismissed the question.
   */
  private async allowed(state: ServerState, origin: string): Promise<boolean | "interrupted"> {
    const { spec } = state;
    // One that cannot start anyway is not asked about: it fails saying why.
    if (!spec.launch) return true;
    const { launch } = spec;
    const request: ServerStartRequest = {
      callId: `mcp-start-${spec.name}`,
      tool: serverStartTool(spec.name),
      permission: "exec",
      // A local server's command line is shown as its own part of the question; a URL is not.
      summary: `start MCP server ${spec.name} from ${origin}${launch.transport === "stdio" ? "" : `: ${spec.display}`}`,
      ...(launch.transport === "stdio"
        ? { command: { text: [launch.command, ...launch.args].map(shellWord).join(" "), cwd: launch.cwd } }
        : {}),
      unconfined: true,
      allowRule: `{tool: "${serverStartTool(spec.name)}", action: allow}`,
      unseenByModel: true,
    };
    const decision = this.options.approve
      ? await this.options.approve(request)
      : { allowed: false as const, reason: "nothing here can approve a server the workspace defines" };
    if (decision.allowed) return true;
    if ("interrupted" in decision && decision.interrupted) return "interrupted";
    // The policy's words for the model, made a line for the person: what it is, why, what allows it.
    const reason = decision.reason
      .replace(/^Refused: /, "")
      .replace(/\. Continue without it; the user can /, "; the user can ")
      .replace(/\.$/, "");
    this.fail(state, reason, "not allowed");
    return false;
  }

  private async start(state: ServerState): Promise<void> {
    const { spec } = state;
    if (!spec.launch) return this.fail(state, spec.problem ?? "it cannot start");
    state.status = "starting";
    try {
      // The SDK's client is loaded with the first server: a session without servers never needs it.
      const { McpConnection } = await import("./connection.js");
      const connection = await McpConnection.open(spec, spec.launch, {
        workspace: this.options.workspace,
        serverEnv: this.options.serverEnv,
        onToolsChanged: (tools) => this.list(state, tools),
        onLost: (reason) => this.fail(state, `it stopped: ${reason}`),
      });
      if (this.closed) return void (await connection.close());
      state.connection = connection;
      this.list(state, connection.tools);
    } catch (error) {
      this.fail(state, `it failed to start: ${(error as Error).message}`);
    }
  }

  /** Takes the server's (new) list of tools and tells the registry, when it differs from the last. */
  private list(state: ServerState, tools: McpTool[]): void {
    if (this.closed || state.status === "failed") return;
    const signature = JSON.stringify(tools.map((t) => [t.name, t.description, t.inputSchema, t.annotations]));
    if (state.status === "ready" && signature === state.signature) return;
    const { spec } = state;
    state.signature = signature;
    state.status = "ready";
    state.tools = new Map(
      tools
        .filter((tool) => passes(spec.filter, tool.name))
        .map((tool) => [tool.name, this.wrap(state, tool)]),
    );
    this.options.report?.({
      type: "mcp.server",
      server: spec.name,
      status: "ready",
      tools: state.tools.size,
    });
    this.changed();
  }

  /** Reported once; the server's tools are withdrawn and the session goes on. */
  private fail(state: ServerState, message: string, status: "failed" | "not allowed" = "failed"): void {
    if (this.closed || state.status === "failed" || state.status === "not allowed") return;
    state.status = status;
    state.message = message;
    state.tools = new Map();
    void state.connection?.close();
    state.connection = undefined;
    this.options.report?.({
      type: "mcp.server",
      server: state.spec.name,
      status: "failed",
      tools: 0,
      message: `MCP server ${state.spec.name} is not available: ${message.replace(/\.$/, "")}. Its tools are left out.`,
    });
    this.changed();
  }

  private wrap(state: ServerState, tool: McpTool): AnyTool {
    const { spec } = state;
    const hints = tool.annotations;
    const annotations = {
      ...(hints?.readOnlyHint !== undefined ? { read_only: hints.readOnlyHint } : {}),
      ...(hints?.destructiveHint !== undefined ? { destructive: hints.destructiveHint } : {}),
      ...(hints?.openWorldHint !== undefined ? { open_world: hints.openWorldHint } : {}),
    };
    return {
      name: toolName(spec.name, tool.name),
      description: `${tool.description ?? tool.title ?? tool.name} (from the MCP server ${spec.name})`,
      schema: validator(tool.inputSchema),
      parameters: tool.inputSchema as Record<string, unknown>,
      permission: spec.trusted(tool.name) ? "read" : "exec",
      kind: hints?.readOnlyHint ? "read" : "other",
      ...(Object.keys(annotations).length ? { annotations } : {}),
      describe: describeArguments,
      // A remote server cannot change the work tree; a local one may, so its calls are checkpointed.
      touches: spec.transport === "stdio" ? unknownTouches : () => ({ writes: [] }),
      execute: (args, ctx) =>
        this.callTool(state.spec.name, tool.name, args as Record<string, unknown>, ctx.signal),
    };
  }

  private view(state: ServerState): CatalogServer {
    return {
      name: state.spec.name,
      status: state.status,
      message: state.message,
      tools: state.tools,
      onDemand: this.deferred(),
    };
  }

  catalog(): CatalogServer[] {
    return this.servers.filter((state) => state.status !== "disabled").map((state) => this.view(state));
  }

  /** The server by name, ready to be asked, or an error saying why it cannot be. */
  private connected(name: string): ServerState & { connection: McpConnection } {
    const state = this.servers.find((s) => s.spec.name === name && s.status !== "disabled");
    if (!state) {
      const names = this.catalog()
        .map((s) => s.name)
        .join(", ");
      throw new ToolError(`There is no MCP server named ${name}. Servers: ${names || "none"}.`);
    }
    if (!state.connection || state.status !== "ready") {
      throw new ToolError(`MCP server ${name} is not available (${state.message ?? state.status}).`);
    }
    return state as ServerState & { connection: McpConnection };
  }

  available(name: string): CatalogServer {
    return this.view(this.connected(name));
  }

  /** A tool of a server that its filter offers, whether or not it is offered directly. */
  find(server: string, tool: string): AnyTool | undefined {
    return this.servers.find((s) => s.spec.name === server)?.tools.get(tool);
  }

  private async ask<T>(
    server: string,
    what: string,
    signal: AbortSignal,
    request: (c: McpConnection) => Promise<T>,
  ) {
    const { connection, spec } = this.connected(server);
    try {
      return await request(connection);
    } catch (error) {
      if (error instanceof ToolError || signal.aborted) throw error;
      throw new ToolError(`${what} failed: ${describeFailure(error, spec.launch, spec.timeoutMs)}`);
    }
  }

  callTool(server: string, tool: string, args: Record<string, unknown>, signal: AbortSignal) {
    return this.ask(server, `${server}/${tool}`, signal, async (c) =>
      toolOutput(await c.callTool(tool, args, signal), server, tool),
    );
  }

  readResource(server: string, uri: string, signal: AbortSignal) {
    return this.ask(server, `Reading ${uri} from ${server}`, signal, async (c) =>
      resourceOutput(await c.readResource(uri, signal), server, uri),
    );
  }

  resources(server: string, signal: AbortSignal) {
    return this.ask(server, `Listing the resources of ${server}`, signal, (c) => c.listResources(signal));
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.servers.map((state) => state.connection?.close()));
  }
}
