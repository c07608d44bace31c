import { z } from "zod";
import { toolDescription } from "./descriptions.js";
import { type AnyTool, defineTool } from "./types.js";

/** The tools a search loads at most when it names none exactly: each is in every request from then on. */
const MAX_MATCHES = 5;
/** A listed tool's line: its description's first sentence, cut to this many characters. */
const LINE_CHARS = 80;

/** What tool_search needs of the registry it serves. */
export interface DeferredTools {
  /** The tools offered on demand, loaded or not, in the registry's order. */
  deferred(): AnyTool[];
  /** Offers these in full from the next request on; returns those that were not yet. */
  load(names: readonly string[]): string[];
}

/** What the model is shown of a tool before it asks for it: its first clause, at most a line. */
export function oneLine(description: string): string {
  const first = description.split("\n")[0]!.trim();
  // Up to the end of the first sentence, or to a colon that starts the details.
  const sentence = /^.*?(?=[.!?:](?:\s|$))/.exec(first)?.[0] ?? first;
  return sentence.length > LINE_CHARS ? `${sentence.slice(0, LINE_CHARS - 1).trimEnd()}…` : sentence;
}

/** `fetch_webpage(url, max_chars?)`: the call's shape, for a model that writes its calls as text. */
function signature(tool: AnyTool, parameters: Record<string, unknown>): string {
  const properties = Object.keys((parameters.properties ?? {}) as Record<string, unknown>);
  const required = new Set((parameters.required ?? []) as string[]);
  return `${tool.name}(${properties.map((name) => (required.has(name) ? name : `${name}?`)).join(", ")})`;
}

const words = (text: string) => text.toLowerCase().match(/[a-z0-9]+/g) ?? [];

/** Words that say nothing about what a tool does. */
const FILLER = new Set(
  "a an and the to of for in on at by with from into is are be it its this that what some any i me my you your do can".split(
    " ",
  ),
);

/**
 * The deferred tools a query asks for: exactly those it names, when every word of it is a tool's
 * name; else the best matches of its words in names (which weigh most) and descriptions: those
 * at least half as good as the best, so that a weak match does not load a tool for nothing.
 */
function matches(tools: AnyTool[], query: string): AnyTool[] {
  const named = query.split(/[\s,]+/).filter(Boolean);
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  if (named.length && named.every((name) => byName.has(name))) return named.map((name) => byName.get(name)!);
  const asked = new Set(words(query).filter((word) => word.length > 1 && !FILLER.has(word)));
  const scored = tools.map((tool, index) => {
    const name = new Set(words(tool.name));
    const text = new Set(words(tool.description));
    let score = 0;
    for (const word of asked) score += name.has(word) ? 3 : text.has(word) ? 1 : 0;
    return { tool, index, score };
  });
  const best = Math.max(0, ...scored.map((entry) => entry.score));
  return scored
    .filter((entry) => entry.score > 0 && entry.score * 2 >= best)
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .slice(0, MAX_MATCHES)
    .map((entry) => entry.tool);
}

/**
 * `tool_search`: names the tools offered on demand with a line each (in its description, which
 * stays the same while they do, so the cached prompt prefix holds) and loads those the model asks
 * for. A loaded tool is appended to the tools of every later request; `parameters` gives the JSON
 * Schema it is sent with.
 */
export function toolSearchTool(
  listed: readonly AnyTool[],
  registry: DeferredTools,
  parameters: (tool: AnyTool) => Record<string, unknown>,
): AnyTool {
  const listing = listed.map((tool) => `- ${tool.name}: ${oneLine(tool.description)}`).join("\n");
  return defineTool({
    name: "tool_search",
    kind: "search",
    description: toolDescription("tool_search", { tools: listing }),
    schema: z.object({
      query: z.string().min(1).describe("Tool names separated by commas, or words for what you need"),
    }),
    permission: "read",
    describe: ({ query }) => query,
    // Loads tools into the session's list: no file of the workspace is touched.
    touches: () => ({ writes: [] }),
    async execute({ query }) {
      const deferred = registry.deferred();
      const found = matches(deferred, query);
      if (found.length === 0) {
        return {
          text: `No tool matches "${query}". Tools to load: ${deferred.map((tool) => tool.name).join(", ")}.`,
        };
      }
      registry.load(found.map((tool) => tool.name));
      const lines = found.map((tool) => `- ${signature(tool, parameters(tool))}: ${tool.description}`);
      return { text: `Loaded; call them from now on:\n${lines.join("\n")}` };
    },
  });
}
