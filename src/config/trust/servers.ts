import { keyPathText } from "../keyPath.js";
import type { Config } from "../schema.js";
import type { WorkspaceSetting } from "./narrow.js";

/** The keys of a server's settings that say what runs, or where it connects and with what. */
export const LAUNCH_KEYS = ["type", "command", "args", "env", "cwd", "url", "headers"] as const;

type Mapping = Record<string, unknown>;

/** The tool name rules use for the start of a workspace server: `{tool: "mcp_server:docs", action: allow}`. */
export const serverStartTool = (name: string) => `mcp_server:${name}`;

/** Whether the person's own rules say yes to starting this server by name (`cairn mcp add` saves one). */
function allowedByPerson(name: string, user: Config): boolean {
  return user.rules.some((rule) => rule.action === "allow" && rule.tool === serverStartTool(name));
}

function isMapping(value: unknown): value is Mapping {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Whether a server's settings say what runs or where it connects (a server of its own, not a tweak of one). */
export function setsLaunch(server: unknown): server is Mapping {
  return isMapping(server) && LAUNCH_KEYS.some((key) => server[key] !== undefined);
}

/** Every `${VAR}` a server's launch settings refer to, `${VAR:-default}` included, in order. */
export function referencedVariables(server: Mapping): string[] {
  const found = new Set<string>();
  const look = (value: unknown): void => {
    if (typeof value === "string") {
      for (const match of value.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-[^}]*)?\}/g)) found.add(match[1]!);
    } else if (Array.isArray(value)) value.forEach(look);
    else if (isMapping(value)) Object.values(value).forEach(look);
  };
  for (const key of LAUNCH_KEYS) look(server[key]);
  return [...found];
}

/** What starting a workspace's server would do, in the words of the trust question and notice. */
function serverWords(name: string, server: Mapping): string {
  const remote = server.url !== undefined || (server.type !== undefined && server.type !== "stdio");
  const line = [server.command, ...(Array.isArray(server.args) ? server.args : [])].map(String).join(" ");
  const what = remote
    ? `connect to MCP server ${name} at ${String(server.url ?? "")}`
    : `start MCP server ${name} (${line.trim()}), which runs outside the sandbox`;
  const variables = referencedVariables(server);
  return variables.length > 0 ? `${what}, filled with ${variables.join(", ")} from your environment` : what;
}

/**
 * Splits the MCP servers a workspace layer defines of its own (launch settings for a name the
 * person has no server of) out of what an untrusted folder keeps: such a server runs the
 * repository's program outside the sandbox, or sends the person's variables (`${VAR}` in its URL,
 * headers, arguments or environment) to the repository's address, so until the folder is trusted
 * it is neither started nor expanded. Each is one widening setting, `mcp_servers.<name>`, naming
 * what it would run or reach and every variable it refers to; the hash of a trusted folder covers
 * its whole settings. A server of the person's own stays, as the declarations judged it, and so
 * does one their own rules allow to start by name (`{tool: "mcp_server:docs", action: allow}`,
 * which `cairn mcp add` saves for the folder): its start is then theirs, though its `${VAR}`s are
 * still not filled while the folder is untrusted (mcp/servers.ts).
 */
export function withoutWorkspaceServers(
  split: { kept: Mapping; widening: WorkspaceSetting[] },
  file: string,
  raw: Mapping,
  user: Config,
): { kept: Mapping; widening: WorkspaceSetting[] } {
  const servers = raw.mcp_servers;
  if (!isMapping(servers)) return split;
  const own = Object.entries(servers).filter(
    ([name, server]) =>
      user.mcp_servers[name] === undefined && setsLaunch(server) && !allowedByPerson(name, user),
  );
  if (own.length === 0) return split;
  const names = new Set(own.map(([name]) => name));
  const kept = isMapping(split.kept.mcp_servers)
    ? Object.fromEntries(Object.entries(split.kept.mcp_servers).filter(([name]) => !names.has(name)))
    : {};
  const { mcp_servers: _, ...rest } = split.kept;
  // What else it asks of such a server (`trust: read`) goes with it: the server itself is left out.
  const keys = [...names].map((name) => keyPathText(["mcp_servers", name]));
  const under = (key: string) => keys.some((at) => key.startsWith(`${at}.`));
  return {
    kept: Object.keys(kept).length > 0 ? { ...rest, mcp_servers: kept } : rest,
    widening: [
      ...split.widening.filter((setting) => !under(setting.key)),
      ...own.map(([name, server]) => ({
        file,
        key: keyPathText(["mcp_servers", name]),
        asks: serverWords(name, server as Mapping),
        value: server,
      })),
    ],
  };
}
