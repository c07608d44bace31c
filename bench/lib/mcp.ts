import path from "node:path";
import { ROOT } from "./paths.js";

const serverEntry = (pkg: string) =>
  path.join(ROOT, "node_modules", "@modelcontextprotocol", pkg, "dist", "index.js");

/** The tests' MCP server with as many tools as asked (test/mcp/fixtures/countServer.mjs). */
const COUNT_SERVER = path.join(ROOT, "test", "mcp", "fixtures", "countServer.mjs");

/**
 * 90 MCP tools: the two reference servers from npm (devDependencies; 28 tools between them) and
 * the tests' counting server with 62 (61 numbered and `long`).
 */
export function mcpServers(workspace: string): Record<string, unknown> {
  return {
    everything: { command: process.execPath, args: [serverEntry("server-everything"), "stdio"] },
    filesystem: { command: process.execPath, args: [serverEntry("server-filesystem"), workspace] },
    count: { command: process.execPath, args: [COUNT_SERVER, "--tools", "61"] },
  };
}
