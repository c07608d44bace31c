import { z } from "zod";
import type { ToolDefinition } from "../model/stream.js";
import { CALL_TOOL } from "./callTool.js";
import { toolDescription } from "./descriptions.js";
import { aliasWords, toolOfOtherName } from "./otherNames.js";
import { type AnyTool, defineTool } from "./types.js";

/** The tools a search gives at most when it names none exactly. */
const MAX_MATCHES = 5;
/** A listed tool's line: its description's first sentence, cut to this many characters. */
const LINE_CHARS = 80;

/** What tool_search needs of the registry it serves. */
export interface DeferredTools {
  /** Every tool, offered in full or on demand, in the registry's order. */
  list(): AnyTool[];
  /** Whether a tool is in every request, rather than offered on demand. */
  offers(name: string): boolean;
  /** Notes tools as known to the model; returns those that were not yet. */
  load(names: readonly string[]): string[];
  definition(tool: AnyTool): ToolDefinition;
}

/** What the model is shown of a tool before it asks for it: its first clause, at most a line. */
export function oneLine(description: string): string {
  const first = description.split("\n")[0]!.trim();
  // Up to the end of the first sentence, or to a colon that starts the details.
  const sentence = /^.*?(?=[.!?:](?:\s|$))/.exec(first)?.[0] ?? first;
  return sentence.length > LINE_CHARS ? `${sentence.slice(0, LINE_CHARS - 1).trimEnd()}…` : sentence;
}

/** A word as compared: lower case, a plural's `s` dropped (`urls`, `pages`). */
const stem = (word: string) =>
  word.length > 3 && word.endsWith("s") && !word.endsWith("ss") ? word.slice(0, -1) : word;
const words = (text: string) => (text.toLowerCase().match(/[a-z0-9]+/g) ?? []).map(stem);

/** Words that say nothing about what a tool does. */
const FILLER = new Set(
  "a an and the to of for in on at by with from into is are be it its this that what some any i me my you your do can".split(
    " ",
  ),
);

/** A tool's own name, the other agents' names for it and the plain words for what it does. */
function namesOf(tool: AnyTool): Set<string> {
  return new Set([
    ...words(tool.name),
    tool.name.toLowerCase().replace(/[_-]/g, ""),
    ...aliasWords(tool.name).map(stem),
  ]);
}

/**
 * The tools a query asks for: exactly those it names, when every word of it is a tool's name or
 * another agent's name for one (`WebFetch, Bash`); else the best matches of its words. A word
 * among a tool's names (its own, other agents', plain words for it) weighs four times one in its
 * description, and only the tools at least two thirds as good as the best are given, so that a
 * weak match does not come along. Tools already in every request match by their names only:
 * the model has their descriptions.
 */
function matches(tools: AnyTool[], registry: DeferredTools, query: string): AnyTool[] {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const named = query.split(/[\s,]+/).filter(Boolean);
  const resolved = named.map((name) => byName.get(name) ?? byName.get(toolOfOtherName(name) ?? ""));
  if (named.length && resolved.every((tool) => tool !== undefined)) return [...new Set(resolved)];
  const asked = new Set(words(query).filter((word) => word.length > 1 && !FILLER.has(word)));
  const scored = tools.map((tool, index) => {
    const names = namesOf(tool);
    const text = registry.offers(tool.name) ? new Set<string>() : new Set(words(tool.description));
    let score = 0;
    for (const word of asked) score += names.has(word) ? 4 : text.has(word) ? 1 : 0;
    return { tool, index, score };
  });
  const best = Math.max(0, ...scored.map((entry) => entry.score));
  return scored
    .filter((entry) => entry.score > 0 && entry.score * 3 >= best * 2)
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .slice(0, MAX_MATCHES)
    .map((entry) => entry.tool);
}

/** An MCP server's tool: `<server>__<tool>`. */
const SERVER_TOOL = /^([\w-]+?)__(.+)$/;

/**
 * What tool_search's description names: each of cairn's own tools with a line of what it does,
 * and each MCP server's tools by name only, one line a server (90 tools would take 1,600 tokens
 * of every request with a line each; their descriptions are what a search matches).
 */
function listingOf(listed: readonly AnyTool[]): string {
  const own: string[] = [];
  const servers = new Map<string, string[]>();
  for (const tool of listed) {
    const server = SERVER_TOOL.exec(tool.name);
    if (!server) own.push(`- ${tool.name}: ${oneLine(tool.description)}`);
    else servers.set(server[1]!, [...(servers.get(server[1]!) ?? []), server[2]!]);
  }
  const grouped = [...servers].map(([server, names]) => `- ${server}__: ${names.join(", ")}`);
  return [
    ...own,
    ...(grouped.length ? ["MCP servers' tools, named <server>__<tool>:", ...grouped] : []),
  ].join("\n");
}

/** A deferred tool as tool_search gives it: what it does and its parameters, to call it by. */
function definitionText(definition: ToolDefinition): string {
  return `### ${definition.name}\n${definition.description}\nParameters (JSON Schema): ${JSON.stringify(definition.parameters)}`;
}

/**
 * `tool_search`: names the tools offered on demand with a line each (in its description, which
 * stays the same while they do, so the cached prompt prefix holds) and gives the model the whole
 * definition of those it asks for, to call through call_tool. Nothing is added to the requests'
 * tools, which providers cache first: the answer is a message like any other.
 */
export function toolSearchTool(listed: readonly AnyTool[], registry: DeferredTools): AnyTool {
  const listing = listingOf(listed);
  return defineTool({
    name: "tool_search",
    kind: "search",
    description: toolDescription("tool_search", { tools: listing }),
    schema: z.object({
      query: z
        .string()
        .min(1)
        .describe("Tool names separated by commas (other agents' names too), or words for what you need"),
    }),
    permission: "read",
    describe: ({ query }) => query,
    // Gives definitions: no file of the workspace is touched.
    touches: () => ({ writes: [] }),
    async execute({ query }) {
      const found = matches(registry.list(), registry, query);
      const onDemand = found.filter((tool) => !registry.offers(tool.name));
      const offered = found.filter((tool) => registry.offers(tool.name));
      if (found.length === 0) {
        return {
          text: `No tool matches "${query}". Offered on demand: ${listed.map((tool) => tool.name).join(", ")}.`,
        };
      }
      registry.load(onDemand.map((tool) => tool.name));
      const parts = [
        ...(offered.length
          ? [
              `Already in your tools: ${offered.map((tool) => `${tool.name} (${oneLine(tool.description)})`).join("; ")}.`,
            ]
          : []),
        ...(onDemand.length
          ? [
              `Call ${onDemand.length === 1 ? "it" : "them"} with ${CALL_TOOL} {"name": "<tool>", "arguments": {…}}:`,
              ...onDemand.map((tool) => definitionText(registry.definition(tool))),
            ]
          : []),
      ];
      return { text: parts.join("\n\n") };
    },
  });
}
