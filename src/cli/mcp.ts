import { mkdir } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { globalConfigFile, loadConfig, mcpJsonFile, projectConfigFile } from "../config/load.js";
import { type McpServerConfig, mcpServerSchema } from "../config/schema.js";
import { realFolder } from "../config/trust/decide.js";
import { serverStartTool } from "../config/trust/servers.js";
import { foldersFile, removeFolderRule, saveFolderRules } from "../config/trust/store.js";
import { addServer, removeFromMcpJson, removeServer } from "../mcp/configFile.js";
import { McpTools, type ServerState } from "../mcp/hub.js";
import { describeIssue } from "../platform/issues.js";
import { clip, renderTable } from "../platform/table.js";
import { homePath } from "../platform/text.js";
import { wrapToWidth } from "../platform/wrap.js";
import { ApprovalPolicy } from "../safety/approval.js";
import { cleanEnvironment, environmentPolicy } from "../safety/environment.js";
import { warnUntrusted } from "../ui/trustNotice.js";
import { type CommandIo, columnsOf, usageError, writeProse } from "./sessions.js";

export interface McpListOptions {
  cwd?: string;
  config?: string;
  json?: boolean;
}

/**
 * The servers' state as a table, and why each failed one did: what `cairn mcp list` prints and
 * `/mcp` shows; within `width` columns when given (a terminal's), its sentences broken between words.
 */
export function serverTable(servers: readonly ServerState[], width?: number): string {
  const prose = (text: string) => (width ? wrapToWidth(text, width) : text);
  if (servers.length === 0)
    return prose(
      "No MCP servers are configured. Add one with cairn mcp add, or in .mcp.json or config.yaml.",
    );
  const table = renderTable(
    [
      { header: "server", cell: (s) => s.spec.name },
      { header: "type", cell: (s) => s.spec.transport },
      { header: "status", cell: (s) => s.status },
      { header: "tools", cell: (s) => (s.status === "ready" ? String(s.tools.size) : "-"), align: "right" },
      { header: "command or url", cell: (s) => clip(s.spec.display, 70), shrink: true },
    ],
    servers,
    "plain",
    width,
  );
  const failures = servers.flatMap((s) =>
    s.status === "failed" || s.status === "not allowed" ? [prose(`${s.spec.name}: ${s.message}`)] : [],
  );
  return [table, ...(failures.length ? ["", ...failures] : [])].join("\n");
}

/** `cairn mcp list`: starts every enabled server, then says how each went. 1 when one failed. */
export async function mcpListCommand(options: McpListOptions, io: CommandIo): Promise<number> {
  const cwd = path.resolve(options.cwd ?? process.cwd());
  const { config, workspaceServers, trust } = await loadConfig({
    cwd,
    ...(options.config ? { configFile: options.config } : {}),
    trust: { defaultApproval: "auto-edit" },
  });
  warnUntrusted(trust);
  // Nobody is asked here: a server the workspace defines starts only when the config allows it
  // (a rule), as in a headless session; otherwise it is listed as `not allowed`, with the rule.
  const policy = new ApprovalPolicy({
    mode: config.approval ?? "auto-edit",
    rules: config.rules,
    workspace: cwd,
    home: process.env.HOME || os.homedir(),
    sandbox: { kind: "none" },
    settings: config.sandbox,
  });
  const hub = new McpTools({
    servers: config.mcp_servers,
    workspace: cwd,
    env: process.env,
    serverEnv: cleanEnvironment(process.env, environmentPolicy(config)),
    workspaceServers,
    workspaceTrusted: trust.trusted,
    approve: (request) => policy.check(request),
  });
  try {
    await hub.ready();
    if (options.json) {
      const rows = hub.servers.map((s) => ({
        name: s.spec.name,
        type: s.spec.transport,
        status: s.status,
        tools: [...s.tools.keys()],
        ...(s.message ? { message: s.message } : {}),
      }));
      io.out.write(`${JSON.stringify(rows, null, 2)}\n`);
    } else {
      io.out.write(`${serverTable(hub.servers, columnsOf(io))}\n`);
    }
    return hub.servers.some((s) => s.status === "failed") ? 1 : 0;
  } finally {
    await hub.close();
  }
}

export interface McpAddOptions {
  cwd?: string;
  transport: "stdio" | "http" | "sse";
  scope: "project" | "global";
  env: string[];
  header: string[];
}

/** `KEY=value` and `Name: value` pairs, as typed after --env and --header. */
function pairs(items: string[], separator: "=" | ":", flag: string): Record<string, string> | string {
  const out: Record<string, string> = {};
  for (const item of items) {
    const at = item.indexOf(separator);
    if (at <= 0) return `${flag} ${item}: expected ${separator === "=" ? "KEY=value" : '"Name: value"'}`;
    out[item.slice(0, at).trim()] = item.slice(at + 1).trim();
  }
  return out;
}

/** The rule `cairn mcp add` writes beside a server it adds to the project's config. */
const addedRule = (name: string) => ({ tool: serverStartTool(name), action: "allow" as const });

function configFileFor(scope: McpAddOptions["scope"], cwd: string): string {
  return scope === "global" ? globalConfigFile() : projectConfigFile(cwd);
}

/**
 * `cairn mcp add <name> -- <command> [args…]` and `cairn mcp add --transport http <name> <url>`:
 * the server goes into the project's config (or the global one), comments kept.
 */
export async function mcpAddCommand(
  name: string,
  target: string[],
  options: McpAddOptions,
  io: CommandIo,
): Promise<number> {
  const cwd = path.resolve(options.cwd ?? process.cwd());
  const [first, ...rest] = target;
  if (!first)
    return usageError(
      io,
      options.transport === "stdio" ? "mcp add: give the command after --" : "mcp add: give the URL",
    );
  const env = pairs(options.env, "=", "--env");
  const headers = pairs(options.header, ":", "--header");
  if (typeof env === "string") return usageError(io, env);
  if (typeof headers === "string") return usageError(io, headers);
  const server: McpServerConfig =
    options.transport === "stdio"
      ? { command: first, ...(rest.length ? { args: rest } : {}), ...(options.env.length ? { env } : {}) }
      : { type: options.transport, url: first, ...(options.header.length ? { headers } : {}) };
  if (options.transport !== "stdio" && rest.length)
    return usageError(io, "mcp add: a remote server takes one URL");
  const checked = mcpServerSchema.safeParse(server);
  if (!checked.success)
    return usageError(io, `mcp add: ${checked.error.issues.map(describeIssue).join("; ")}`);
  if (!/^[\w-]+$/.test(name))
    return usageError(io, `mcp add: ${name}: a name is letters, digits, _ and - only`);
  const file = configFileFor(options.scope, cwd);
  await mkdir(path.dirname(file), { recursive: true });
  await addServer(file, name, checked.data);
  // A server the workspace's config defines is asked about before it starts; one the person adds
  // is theirs, so the rule that lets it start goes into their own settings for this folder.
  const rule = options.scope === "project" ? addedRule(name) : undefined;
  if (rule) await saveFolderRules(realFolder(cwd), [rule]);
  const allowed = rule
    ? `; the rule {tool: "${rule.tool}", action: allow} that lets it start without asking is saved in your settings for this folder (${homePath(foldersFile())})`
    : "";
  writeProse(
    io,
    `Added MCP server ${name} to ${homePath(file)}${allowed}. cairn mcp list starts it and lists its tools.`,
  );
  return 0;
}

/** `cairn mcp remove <name>`: from each file that has it (the project's, the global, `.mcp.json`), or one. */
export async function mcpRemoveCommand(
  name: string,
  options: { cwd?: string; scope?: "project" | "global" | "mcp-json" },
  io: CommandIo,
): Promise<number> {
  const cwd = path.resolve(options.cwd ?? process.cwd());
  const files = [
    {
      scope: "project",
      file: projectConfigFile(cwd),
      remove: (file: string, server: string) => removeServer(file, server, addedRule(server)),
    },
    { scope: "global", file: globalConfigFile(), remove: removeServer },
    { scope: "mcp-json", file: mcpJsonFile(cwd), remove: removeFromMcpJson },
  ].filter((entry) => !options.scope || entry.scope === options.scope);
  const removed: string[] = [];
  for (const { file, remove } of files) if (await remove(file, name)) removed.push(homePath(file));
  // The rule `cairn mcp add` saved for it: it would let another server of that name start.
  if (removed.length > 0 && (!options.scope || options.scope === "project"))
    await removeFolderRule(realFolder(cwd), addedRule(name));
  if (removed.length === 0) {
    io.err.write(`cairn: no MCP server named ${name} in ${files.map((f) => homePath(f.file)).join(", ")}\n`);
    return 1;
  }
  io.out.write(`Removed MCP server ${name} from ${removed.join(" and ")}.\n`);
  return 0;
}
