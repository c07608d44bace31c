import { afterEach, describe, expect, it } from "vitest";
import { type ConfigInput, configSchema } from "../../src/config/schema.js";
import { webTools } from "../../src/web/tools.js";
import { html, json, type Site, startSite, toolContext, toolFailure } from "./site.js";

let site: Site | undefined;
afterEach(async () => {
  await site?.close();
  site = undefined;
});

function search(
  searchConfig: NonNullable<ConfigInput["web"]>["search"],
  env: NodeJS.ProcessEnv,
  query: string,
  max?: number,
) {
  const tools = webTools(configSchema.parse({ web: { search: searchConfig, timeout_ms: 2_000 } }).web, env);
  const tool = tools.find((t) => t.name === "web_search")!;
  return tool.execute({ query, ...(max ? { max_results: max } : {}) }, toolContext());
}

const DUCKDUCKGO_PAGE = `<html><body>
<div class="result result--ad"><a class="result__a" href="https://ads.example/">Buy widgets</a></div>
<div class="result results_links web-result">
  <h2 class="result__title"><a class="result__a" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fwidget.dev%2Fdocs&amp;rut=abc">Widget <b>docs</b></a></h2>
  <a class="result__snippet" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fwidget.dev%2Fdocs">The <b>widget</b> library's documentation.</a>
</div>
<div class="result results_links web-result">
  <h2 class="result__title"><a class="result__a" href="https://github.com/widget/widget">widget/widget on GitHub</a></h2>
  <a class="result__snippet">Source code and issues.</a>
</div>
</body></html>`;

const listed = [
  {
    title: "Widget <strong>docs</strong>",
    url: "https://widget.dev/docs",
    content: "The docs.",
    description: "The <strong>docs</strong>.",
  },
  {
    title: "Widget on GitHub",
    url: "https://github.com/widget/widget",
    content: "Source.",
    description: "Source.",
  },
  { title: "Third", url: "https://third.example/", content: "More.", description: "More." },
];

describe("web_search backends, each against a fake at a configured base URL", () => {
  it("DuckDuckGo's HTML endpoint (the default, no key): results without the ads, links unwrapped", async () => {
    site = await startSite({ "/html/": html(DUCKDUCKGO_PAGE) });
    const output = await search({ base_url: site.base }, {}, "widget docs");
    expect(output.text).toBe(
      "1. Widget docs\n   https://widget.dev/docs\n   The widget library's documentation.\n" +
        "2. widget/widget on GitHub\n   https://github.com/widget/widget\n   Source code and issues.",
    );
    expect(site.requests[0]).toMatchObject({ method: "POST", body: "q=widget+docs" });
  });

  it("Brave, Tavily and SearXNG: their JSON read as title, URL and snippet, with the key from the environment", async () => {
    site = await startSite({
      "/res/v1/web/search": (req, res, body) =>
        req.headers["x-subscription-token"] === "brave-key"
          ? json({ web: { results: listed } })(req, res, body)
          : res.writeHead(401, "Unauthorized").end(),
      "/search": (req, res, body) =>
        req.headers.authorization === "Bearer tavily-key"
          ? json({ results: listed })(req, res, body)
          : res.writeHead(401, "Unauthorized").end(),
      "/searx/search": json({ results: listed }),
    });
    const brave = await search(
      { backend: "brave", base_url: site.base },
      { BRAVE_API_KEY: "brave-key" },
      "widget",
      2,
    );
    expect(brave.text).toBe(
      "1. Widget docs\n   https://widget.dev/docs\n   The docs.\n2. Widget on GitHub\n   https://github.com/widget/widget\n   Source.",
    );
    expect(site.requests[0]?.url).toBe("/res/v1/web/search?q=widget&count=2");

    const tavily = await search(
      { backend: "tavily", base_url: site.base, api_key_env: "MY_TAVILY" },
      { MY_TAVILY: "tavily-key" },
      "widget",
    );
    expect(tavily.text).toContain("3. Third\n   https://third.example/\n   More.");
    expect(JSON.parse(site.requests[1]?.body ?? "{}")).toEqual({ query: "widget", max_results: 8 });

    const searx = await search({ backend: "searxng", base_url: `${site.base}/searx` }, {}, "widget");
    expect(searx.data).toMatchObject({
      backend: "searxng",
      results: [{ url: "https://widget.dev/docs" }, {}, {}],
    });
    expect(site.requests[2]?.url).toBe("/searx/search?q=widget&format=json");
  });

  it("says which backend failed and why: a missing key, a refused key, an error, an address it lacks", async () => {
    site = await startSite({
      "/res/v1/web/search": (_req, res) => res.writeHead(401, "Unauthorized").end(),
      "/searx/search": (_req, res) => res.writeHead(503, "Service Unavailable").end(),
    });
    expect(await toolFailure(search({ backend: "brave", base_url: site.base }, {}, "x"))).toBe(
      "web_search uses Brave Search, which needs an API key in BRAVE_API_KEY, and it is not set. " +
        "The user can set it, or choose another backend with web.search.backend (duckduckgo needs no key).",
    );
    expect(
      await toolFailure(search({ backend: "brave", base_url: site.base }, { BRAVE_API_KEY: "wrong" }, "x")),
    ).toBe(`web_search failed: Brave Search (${site.base}): HTTP 401 Unauthorized; is BRAVE_API_KEY right?`);
    expect(await toolFailure(search({ backend: "searxng", base_url: `${site.base}/searx` }, {}, "x"))).toBe(
      `web_search failed: SearXNG (${site.base}/searx): HTTP 503 Service Unavailable.`,
    );
    expect(await toolFailure(search({ backend: "searxng" }, {}, "x"))).toBe(
      "web_search uses SearXNG, which needs its address: set web.search.base_url in the config.",
    );
  });
});
