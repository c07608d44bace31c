import { z } from "zod";
import type { WebConfig } from "../config/schema.js";
import { toolDescription } from "../tools/descriptions.js";
import { ToolError } from "../tools/toolError.js";
import { type AnyTool, defineTool } from "../tools/types.js";
import type { AddressGuard } from "./address.js";

/** Characters of a page the model gets by default, and at most (tool output is cut past ~30 KB anyway). */
const DEFAULT_CHARS = 20_000;
const MAX_CHARS = 30_000;
const DEFAULT_RESULTS = 8;
const MAX_RESULTS = 20;

function fetchWebpage(config: WebConfig) {
  let guard: AddressGuard | undefined;
  return defineTool({
    name: "fetch_webpage",
    description: toolDescription("fetch_webpage"),
    schema: z.object({
      url: z.string().min(1).describe("The full http:// or https:// address"),
      max_chars: z
        .number()
        .int()
        .positive()
        .max(MAX_CHARS)
        .optional()
        .describe(`Characters of content to return (default ${DEFAULT_CHARS}, at most ${MAX_CHARS})`),
    }),
    permission: "network",
    kind: "fetch",
    deferrable: true,
    describe: ({ url }) => url,
    touches: () => ({ writes: [] }),
    async execute({ url, max_chars }, ctx) {
      // The HTTP client and the page reader load with the first fetch: most sessions never fetch.
      const [{ AddressGuard }, { webRequest, webUrl }, { readPage }] = await Promise.all([
        import("./address.js"),
        import("./http.js"),
        import("./page.js"),
      ]);
      guard ??= new AddressGuard(config.allow_private);
      const start = webUrl(url);
      const response = await webRequest(start, {
        timeoutMs: config.timeout_ms,
        maxBytes: config.max_bytes,
        maxRedirects: config.max_redirects,
        signal: ctx.signal,
        guard,
        headers: { accept: "text/html,application/xhtml+xml,application/json;q=0.9,text/*;q=0.8,*/*;q=0.5" },
      });
      if (response.status >= 400) {
        throw new ToolError(
          `${response.url} answered HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}.`,
        );
      }
      const page = await readPage(response);
      const limit = max_chars ?? DEFAULT_CHARS;
      const shown = page.text.slice(0, limit);
      const lines = [
        ...(page.title ? [`# ${page.title}`] : []),
        `Source: ${response.url}${response.url !== start.href ? ` (redirected from ${start.href})` : ""}`,
        `Content-Type: ${page.contentType}`,
        "",
        shown,
      ];
      if (page.text.length > limit) {
        lines.push(
          "",
          `[Cut at ${limit} of ${page.text.length} characters.${limit < MAX_CHARS ? ` Fetch again with max_chars up to ${MAX_CHARS} for more.` : ""}]`,
        );
      }
      if (response.cut)
        lines.push(
          "",
          `[The download stopped at ${config.max_bytes} bytes (web.max_bytes); the rest was not read.]`,
        );
      return {
        text: lines.join("\n"),
        data: {
          kind: "web_page",
          url: response.url,
          status: response.status,
          content_type: page.contentType,
          chars: page.text.length,
          cut: page.text.length > limit || response.cut,
        },
      };
    },
  });
}

function webSearch(config: WebConfig, env: NodeJS.ProcessEnv) {
  return defineTool({
    name: "web_search",
    description: toolDescription("web_search"),
    schema: z.object({
      query: z.string().min(1).describe("What to search for"),
      max_results: z
        .number()
        .int()
        .positive()
        .max(MAX_RESULTS)
        .optional()
        .describe(`How many results (default ${DEFAULT_RESULTS}, at most ${MAX_RESULTS})`),
    }),
    permission: "network",
    kind: "fetch",
    deferrable: true,
    describe: ({ query }) => query,
    touches: () => ({ writes: [] }),
    async execute({ query, max_results }, ctx) {
      const { searchWeb } = await import("./search.js");
      const results = await searchWeb(config, env, query, max_results ?? DEFAULT_RESULTS, ctx.signal);
      const data = { kind: "web_search" as const, backend: config.search.backend, results };
      if (results.length === 0) return { text: `No results for "${query}".`, data };
      const text = results
        .map((r, i) => `${i + 1}. ${r.title || r.url}\n   ${r.url}${r.snippet ? `\n   ${r.snippet}` : ""}`)
        .join("\n");
      return { text, data };
    },
  });
}

/** fetch_webpage and web_search as the config sets them up; none when `web.enabled` is off. */
export function webTools(config: WebConfig, env: NodeJS.ProcessEnv): AnyTool[] {
  return config.enabled ? [fetchWebpage(config), webSearch(config, env)] : [];
}
