import type { SearchBackend, WebConfig } from "../config/schema.js";
import { ToolError } from "../tools/toolError.js";
import { type WebResponse, webRequest, webUrl } from "./http.js";

export interface SearchResult {
  title: string;
  url: string;
  snippet: string;
}

type ParseHtml = typeof import("linkedom").parseHTML;

interface SearchCall {
  query: string;
  /** linkedom's parser, loaded with the first search. */
  parseHTML: ParseHtml;
  max: number;
  base: URL;
  key: string | undefined;
  send: (
    url: URL,
    init?: { method?: "POST"; headers?: Record<string, string>; body?: string },
  ) => Promise<WebResponse>;
}

interface Backend {
  label: string;
  /** The public endpoint; SearXNG has none, it is always the user's own. */
  base?: string;
  /** The variable the key is read from by default; absent when the backend needs none. */
  keyEnv?: string;
  search(call: SearchCall): Promise<SearchResult[]>;
}

/** The text of an HTML snippet (`Widget <strong>docs</strong> &amp; more`). */
const stripTags = (parseHTML: ParseHtml, html: string): string =>
  parseHTML(`<p>${html}</p>`).document.querySelector("p")?.textContent?.trim() ?? "";

function json(response: WebResponse): unknown {
  try {
    return JSON.parse(response.body.toString("utf8"));
  } catch {
    throw new Error("the answer is not JSON");
  }
}

type Listed = { title?: unknown; url?: unknown; content?: unknown; description?: unknown };

function listed(parseHTML: ParseHtml, items: unknown, snippet: "content" | "description"): SearchResult[] {
  if (!Array.isArray(items)) throw new Error("the answer has no list of results");
  return (items as Listed[]).map((item) => ({
    title: stripTags(parseHTML, String(item.title ?? "")),
    url: String(item.url ?? ""),
    snippet: stripTags(parseHTML, String(item[snippet] ?? "")),
  }));
}

/** DuckDuckGo's result links go through a redirect that carries the target in `uddg`. */
function duckDuckGoTarget(href: string, base: URL): string {
  const url = new URL(href, base);
  return url.searchParams.get("uddg") ?? url.href;
}

const BACKENDS: Record<SearchBackend, Backend> = {
  duckduckgo: {
    label: "DuckDuckGo",
    base: "https://html.duckduckgo.com",
    async search({ query, base, send, parseHTML }) {
      const response = await send(new URL("/html/", base), {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ q: query }).toString(),
      });
      const { document } = parseHTML(response.body.toString("utf8"));
      const results = [...document.querySelectorAll(".result")].filter(
        (node) => !node.classList.contains("result--ad"),
      );
      if (results.length === 0 && /anomaly|captcha/i.test(response.body.toString("utf8")))
        throw new Error("it asked for a captcha instead of answering; choose another backend in web.search");
      return results.flatMap((node) => {
        const link = node.querySelector(".result__a");
        const href = link?.getAttribute("href");
        if (!link || !href) return [];
        return [
          {
            title: link.textContent?.trim() ?? "",
            url: duckDuckGoTarget(href, base),
            snippet: node.querySelector(".result__snippet")?.textContent?.trim() ?? "",
          },
        ];
      });
    },
  },
  brave: {
    label: "Brave Search",
    base: "https://api.search.brave.com",
    keyEnv: "BRAVE_API_KEY",
    async search({ query, max, base, key, send, parseHTML }) {
      const url = new URL("/res/v1/web/search", base);
      url.search = new URLSearchParams({ q: query, count: String(max) }).toString();
      const response = await send(url, {
        headers: { accept: "application/json", "x-subscription-token": key ?? "" },
      });
      return listed(
        parseHTML,
        (json(response) as { web?: { results?: unknown } }).web?.results ?? [],
        "description",
      );
    },
  },
  tavily: {
    label: "Tavily",
    base: "https://api.tavily.com",
    keyEnv: "TAVILY_API_KEY",
    async search({ query, max, base, key, send, parseHTML }) {
      const response = await send(new URL("/search", base), {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
        body: JSON.stringify({ query, max_results: max }),
      });
      return listed(parseHTML, (json(response) as { results?: unknown }).results, "content");
    },
  },
  searxng: {
    label: "SearXNG",
    async search({ query, base, send, parseHTML }) {
      const url = new URL("search", base.href.endsWith("/") ? base : `${base.href}/`);
      url.search = new URLSearchParams({ q: query, format: "json" }).toString();
      const response = await send(url, { headers: { accept: "application/json" } });
      return listed(parseHTML, (json(response) as { results?: unknown }).results, "content");
    },
  },
};

/** Searches the web with the backend the config chooses; a failure names the backend and why. */
export async function searchWeb(
  config: WebConfig,
  env: NodeJS.ProcessEnv,
  query: string,
  max: number,
  signal: AbortSignal,
): Promise<SearchResult[]> {
  const { backend: name, base_url, api_key_env } = config.search;
  const backend = BACKENDS[name];
  const baseText = base_url ?? backend.base;
  if (!baseText)
    throw new ToolError(
      `web_search uses ${backend.label}, which needs its address: set web.search.base_url in the config.`,
    );
  const keyEnv = api_key_env ?? backend.keyEnv;
  const key = keyEnv ? env[keyEnv] : undefined;
  if (backend.keyEnv && !key) {
    throw new ToolError(
      `web_search uses ${backend.label}, which needs an API key in ${keyEnv}, and it is not set. ` +
        "The user can set it, or choose another backend with web.search.backend (duckduckgo needs no key).",
    );
  }
  const send: SearchCall["send"] = async (url, init = {}) => {
    const response = await webRequest(url, {
      ...init,
      timeoutMs: config.timeout_ms,
      maxBytes: config.max_bytes,
      maxRedirects: config.max_redirects,
      signal,
    });
    if (response.status >= 400) {
      const refused = key && (response.status === 401 || response.status === 403);
      throw new Error(
        `HTTP ${response.status} ${response.statusText}`.trim() + (refused ? `; is ${keyEnv} right?` : ""),
      );
    }
    return response;
  };
  try {
    const { parseHTML } = await import("linkedom");
    const results = await backend.search({ query, max, base: webUrl(baseText), key, send, parseHTML });
    return results.filter((result) => result.url).slice(0, max);
  } catch (error) {
    if (signal.aborted) throw error;
    const why = error instanceof Error ? error.message : String(error);
    throw new ToolError(
      `web_search failed: ${backend.label} (${baseText}): ${/[.?]$/.test(why) ? why : `${why}.`}`,
    );
  }
}
