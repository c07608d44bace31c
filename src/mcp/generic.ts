import { z } from "zod";
import { prepareArguments } from "../tools/args.js";
import { toolDescription } from "../tools/descriptions.js";
import { ToolError } from "../tools/toolError.js";
import { unknownTouches } from "../tools/touches.js";
import { type AnyTool, defineTool, type ToolOutput } from "../tools/types.js";

/** One server as the generic tools see it. */
export interface CatalogServer {
  name: string;
  status: string;
  message?: string | undefined;
  /** The tools its filter offers, by their name on the server. */
  tools: ReadonlyMap<string, AnyTool>;
  /** Its tools, named `<server>__<tool>`, are offered on demand (tool_search) rather than in full. */
  onDemand: boolean;
}

/** What list_mcp_tools, call_mcp_tool and read_mcp_resource need of the servers. */
export interface McpCatalog {
  catalog(): CatalogServer[];
  /** The server by name, or an error saying why it cannot be used. */
  available(name: string): CatalogServer;
  resources(
    server: string,
    signal: AbortSignal,
  ): Promise<Array<{ uri: string; name: string; description?: string | undefined }>>;
  readResource(server: string, uri: string, signal: AbortSignal): Promise<ToolOutput>;
}

const line = (text: string | undefined) => (text ?? "").split("\n")[0]?.trim() ?? "";

function overview(servers: CatalogServer[]): string {
  return servers
    .map((server) => {
      if (server.status !== "ready") return `${server.name}: ${server.message ?? server.status}`;
      const how = server.onDemand
        ? `find them as ${server.name}__<tool> with tool_search, or call them with call_mcp_tool`
        : `also offered directly as tools named ${server.name}__<tool>`;
      const tools = [...server.tools.entries()].map(
        ([name, tool]) => `  - ${name}: ${line(tool.description)}`,
      );
      return [`${server.name}: ${server.tools.size} tools (${how})`, ...tools].join("\n");
    })
    .join("\n\n");
}

async function details(catalog: McpCatalog, server: CatalogServer, signal: AbortSignal): Promise<string> {
  const tools = [...server.tools.entries()].map(
    ([name, tool]) =>
      `### ${name}\n${tool.description}\nArguments (JSON Schema): ${JSON.stringify(tool.parameters ?? {})}`,
  );
  const resources = await catalog.resources(server.name, signal);
  const listed = resources.map(
    (r) => `- ${r.uri}${r.name ? ` (${r.name})` : ""}${r.description ? `: ${line(r.description)}` : ""}`,
  );
  return [
    `# ${server.name}: ${server.tools.size} tools`,
    ...tools,
    ...(listed.length ? [`# Resources (read_mcp_resource)\n${listed.join("\n")}`] : []),
  ].join("\n\n");
}

/**
 * The tools that reach every MCP server by name: for a server with too many tools to offer one
 * by one, for a model without native tool calling, and for resources.
 */
export function genericTools(
  catalog: McpCatalog & { find(server: string, tool: string): AnyTool | undefined },
): AnyTool[] {
  const listTools = defineTool({
    name: "list_mcp_tools",
    description: toolDescription("list_mcp_tools"),
    schema: z.object({ server: z.string().optional().describe("One server's tools in full") }),
    permission: "read",
    kind: "search",
    deferrable: true,
    describe: ({ server }) => server ?? "",
    touches: () => ({ writes: [] }),
    async execute({ server }, ctx): Promise<ToolOutput> {
      if (server) return { text: await details(catalog, catalog.available(server), ctx.signal) };
      const servers = catalog.catalog();
      return { text: servers.length ? overview(servers) : "No MCP servers are configured." };
    },
  });

  const callTool = defineTool({
    name: "call_mcp_tool",
    description: toolDescription("call_mcp_tool"),
    schema: z.object({
      server: z.string().min(1),
      tool: z.string().min(1).describe("The tool's name on the server, without the server prefix"),
      arguments: z.looseObject({}).optional().describe("The tool's arguments"),
    }),
    // Judged as the tool it calls; only a call to no tool at all is judged as this.
    permission: "read",
    kind: "other",
    deferrable: true,
    describe: ({ server, tool, arguments: args }) => {
      const target = catalog.find(server, tool);
      const what = target && args ? target.describe(args) : "";
      return `${server}/${tool}${what ? ` ${what}` : ""}`;
    },
    actsAs: ({ server, tool }) => catalog.find(server, tool),
    touches: ({ server, tool, arguments: args }) =>
      catalog.find(server, tool)?.touches(args ?? {}) ?? unknownTouches(args),
    async execute({ server, tool, arguments: args }, ctx) {
      const target = catalog.available(server).tools.get(tool);
      if (!target) {
        const names = [...catalog.available(server).tools.keys()].join(", ");
        throw new ToolError(
          `MCP server ${server} offers no tool named ${tool}. Its tools: ${names || "none"}.`,
        );
      }
      const prepared = prepareArguments(args ?? {}, target.schema);
      if (!prepared.ok)
        throw new ToolError(
          `${server}/${tool}: ${prepared.message}. Call it again with arguments that fit its schema.`,
        );
      return target.execute(prepared.value, ctx);
    },
  });

  const readResource = defineTool({
    name: "read_mcp_resource",
    description: toolDescription("read_mcp_resource"),
    schema: z.object({ server: z.string().min(1), uri: z.string().min(1) }),
    permission: "read",
    kind: "read",
    deferrable: true,
    describe: ({ server, uri }) => `${server} ${uri}`,
    touches: () => ({ writes: [] }),
    execute: ({ server, uri }, ctx) => catalog.readResource(server, uri, ctx.signal),
  });

  return [listTools, callTool, readResource];
}
