import { readFile } from "node:fs/promises";
import { isMap, isSeq, parseDocument } from "yaml";
import type { McpServerConfig, Rule } from "../config/schema.js";
import { writeFileAtomic } from "../platform/atomicFile.js";
import { ConfigError } from "../platform/errors.js";

async function readOptional(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

async function yamlDocument(file: string) {
  const doc = parseDocument((await readOptional(file)) ?? "");
  if (doc.errors[0]) throw new ConfigError(`${file} is not valid YAML: ${doc.errors[0].message}`);
  return doc;
}

/**
 * Adds a server under `mcp_servers:` of a config file, creating the file if needed. The file is
 * edited as a YAML document, so the person's comments and layout stay as they were.
 */
export async function addServer(file: string, name: string, server: McpServerConfig): Promise<void> {
  const doc = await yamlDocument(file);
  if (doc.hasIn(["mcp_servers", name]))
    throw new ConfigError(
      `${file} already has an MCP server named ${name}; remove it first or choose another name.`,
    );
  if (!isMap(doc.get("mcp_servers"))) doc.set("mcp_servers", doc.createNode({}));
  doc.setIn(["mcp_servers", name], doc.createNode(server));
  await writeFileAtomic(file, Buffer.from(doc.toString()));
}

/** Whether a rule's node is exactly this rule (same keys, same values). */
function sameRule(item: unknown, rule: Rule): boolean {
  const value = isMap(item) ? (item.toJSON() as Record<string, unknown>) : undefined;
  if (!value) return false;
  const keys = Object.keys(value);
  return (
    keys.length === Object.keys(rule).length &&
    keys.every((key) => value[key] === (rule as Record<string, unknown>)[key])
  );
}

/** Removes a server from a YAML config file; false when the file does not have it. */
export async function removeServer(file: string, name: string, rule?: Rule): Promise<boolean> {
  if ((await readOptional(file)) === undefined) return false;
  const doc = await yamlDocument(file);
  if (!doc.hasIn(["mcp_servers", name])) return false;
  doc.deleteIn(["mcp_servers", name]);
  const servers = doc.get("mcp_servers");
  if (isMap(servers) && servers.items.length === 0) doc.delete("mcp_servers");
  // A rule that let it start goes too (earlier versions of `cairn mcp add` wrote one here): it
  // would let another server of that name start.
  const rules = doc.get("rules");
  if (rule && isSeq(rules)) {
    rules.items = rules.items.filter((item) => !sameRule(item, rule));
    if (rules.items.length === 0) doc.delete("rules");
  }
  await writeFileAtomic(file, Buffer.from(doc.toString()));
  return true;
}

/** Removes a server from the workspace's `.mcp.json`; false when it does not have it. */
export async function removeFromMcpJson(file: string, name: string): Promise<boolean> {
  const text = await readOptional(file);
  if (text === undefined) return false;
  let json: { mcpServers?: Record<string, unknown> };
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${file}: invalid JSON: ${(error as Error).message}`);
  }
  if (!json.mcpServers || !(name in json.mcpServers)) return false;
  delete json.mcpServers[name];
  await writeFileAtomic(file, Buffer.from(`${JSON.stringify(json, null, 2)}\n`));
  return true;
}
