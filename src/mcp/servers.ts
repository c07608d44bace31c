import path from "node:path";
import type { McpServerConfig } from "../config/schema.js";
import { matchesName, type ToolFilter } from "../tools/registry.js";

/** Milliseconds a server may take to start or to answer a request, when its config says nothing. */
export const DEFAULT_MCP_TIMEOUT_MS = 60_000;

/** How to reach one server, with every `${VAR}` read from the environment. */
export type McpLaunch =
  | { transport: "stdio"; command: string; args: string[]; env: Record<string, string>; cwd: string }
  | { transport: "http" | "sse"; url: URL; headers: Record<string, string> };

/** One configured server, ready to start, or the reason it cannot be. */
export interface McpServerSpec {
  name: string;
  enabled: boolean;
  /** `stdio`, `http` or `sse`. */
  transport: McpLaunch["transport"];
  /** The command line or URL as the config writes it, `${VAR}` unexpanded: safe to show. */
  display: string;
  launch: McpLaunch | undefined;
  /** Why it cannot start, said so the person can fix the config. */
  problem: string | undefined;
  timeoutMs: number;
  /** Which of its tools are offered (`tools.allow`, `tools.deny`). */
  filter: ToolFilter;
  /** Whether a tool runs as `read`: the whole server trusted, or the tool listed in `tools.read`. */
  trusted: (tool: string) => boolean;
}

/** A variable that is not set, named so the message can say which and where. */
class MissingVariable extends Error {
  readonly variable: string;
  readonly where: string;

  constructor(variable: string, where: string) {
    super(variable);
    this.variable = variable;
    this.where = where;
  }
}

/**
 * A variable a server of an untrusted workspace refers to: its settings came with the
 * repository, and filling them from the person's environment would hand their values to the
 * repository's program or address.
 */
class RefusedVariable extends MissingVariable {}

/** Where `${VAR}` is read from: the environment, or nothing at all (a workspace's server in a folder nobody trusted). */
type Variables = NodeJS.ProcessEnv | "refused";

/** `${VAR}` and `${VAR:-default}`, as Claude Code reads them in `.mcp.json`. */
function expand(text: string, env: Variables, where: string): string {
  return text.replace(
    /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g,
    (_match, name: string, fallback?: string) => {
      if (env === "refused") throw new RefusedVariable(name, where);
      const value = env[name];
      if (value !== undefined && value !== "") return value;
      if (fallback !== undefined) return fallback;
      throw new MissingVariable(name, where);
    },
  );
}

function expandAll(values: Record<string, string>, env: Variables, where: string): Record<string, string> {
  return Object.fromEntries(
    Object.entries(values).map(([key, value]) => [key, expand(value, env, `${where}.${key}`)]),
  );
}

/** The transport a server's settings ask for: `type`, else a URL's is `http` and a command's `stdio`. */
const transportOf = (server: McpServerConfig): McpLaunch["transport"] =>
  server.type ?? (server.url !== undefined ? "http" : "stdio");

function launchOf(
  name: string,
  server: McpServerConfig,
  workspace: string,
  env: Variables,
): McpLaunch | string {
  const key = `mcp_servers.${name}`;
  const type = transportOf(server);
  if (type === "stdio") {
    if (!server.command) return `${key} has no command: set command (a local server) or url (a remote one).`;
    return {
      transport: "stdio",
      command: expand(server.command, env, `${key}.command`),
      args: (server.args ?? []).map((arg, i) => expand(arg, env, `${key}.args[${i}]`)),
      env: expandAll(server.env ?? {}, env, `${key}.env`),
      cwd: path.resolve(workspace, server.cwd ? expand(server.cwd, env, `${key}.cwd`) : "."),
    };
  }
  if (!server.url) return `${key} has type ${type} but no url.`;
  const text = expand(server.url, env, `${key}.url`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `${key}.url is not a URL: ${text}`;
  }
  return { transport: type, url, headers: expandAll(server.headers ?? {}, env, `${key}.headers`) };
}

/** Why a server whose settings refer to a variable cannot start. */
function variableProblem(error: MissingVariable): string {
  return error instanceof RefusedVariable
    ? `${error.where} refers to \${${error.variable}}, and cairn fills variables in a server the workspace ` +
        "defines only once you trust the folder (cairn trust)."
    : `${error.where} needs the environment variable ${error.variable}, which is not set.`;
}

/**
 * The configured servers by name (sorted, so their tools come in the same order every time).
 * `sealed` names the servers of a workspace nobody trusted: a `${VAR}` in their settings is
 * refused, naming the variable, rather than read from `env`.
 */
export function serverSpecs(
  servers: Record<string, McpServerConfig>,
  workspace: string,
  env: NodeJS.ProcessEnv,
  sealed: ReadonlySet<string> = new Set(),
): McpServerSpec[] {
  return Object.keys(servers)
    .sort()
    .map((name) => {
      const server = servers[name]!;
      let launch: McpLaunch | string;
      try {
        launch = launchOf(name, server, workspace, sealed.has(name) ? "refused" : env);
      } catch (error) {
        if (!(error instanceof MissingVariable)) throw error;
        launch = variableProblem(error);
      }
      const read = server.tools?.read ?? [];
      const transport = transportOf(server);
      return {
        name,
        enabled: server.enabled ?? true,
        transport,
        display:
          transport === "stdio"
            ? [server.command ?? "", ...(server.args ?? [])].join(" ").trim()
            : (server.url ?? ""),
        launch: typeof launch === "string" ? undefined : launch,
        problem: typeof launch === "string" ? launch : undefined,
        timeoutMs: server.timeout ?? DEFAULT_MCP_TIMEOUT_MS,
        filter: { allow: server.tools?.allow, deny: server.tools?.deny },
        trusted: (tool) => server.trust === "read" || read.some((pattern) => matchesName(pattern, tool)),
      };
    });
}
