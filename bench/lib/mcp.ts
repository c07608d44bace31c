import path from "node:path";
import { ROOT } from "./paths.js";

const serverEntry = (pkg: string) =>
  path.join(ROOT, "node_modules", "@modelcontextprotocol", pkg, "dist", "index.js");

/** The two reference MCP servers from npm (devDependencies): some 90 tools between them. */
export function mcpServers(workspace: string): Record<string, unknown> {
  return {
    everything: { command: process.execPath, args: [serverEntry("server-everything"), "stdio"] },
    filesystem: { command: process.execPath, args: [serverEntry("server-filesystem"), workspace] },
  };
}
