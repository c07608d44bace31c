import { gzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { type ConfigInput, configSchema } from "../../src/config/schema.js";
import type { AnyTool } from "../../src/tools/types.js";
import { webTools } from "../../src/web/tools.js";
import { ARTICLE, html, json, redirect, type Site, startSite, toolContext, toolFailure } from "./site.js";

let site: Site | undefined;
afterEach(async () => {
  await site?.close();
  site = undefined;
});

function fetchTool(web: ConfigInput["web"] = {}): AnyTool {
  const tools = webTools(configSchema.parse({ web: { allow_private: ["127.0.0.1"], ...web } }).web, {});
  return tools.find((tool) => tool.name === "fetch_webpage")!;
}

const fetchPage = (url: string, web?: ConfigInput["web"], maxChars?: number) =>
  fetchTool(web).execute({ url, ...(maxChars ? { max_chars: maxChars } : {}) }, toolContext());

describe("fetch_webpage against a server on 127.0.0.1", () => {
  it("turns an HTML page into Markdown of its article, links made absolute, after following a redirect", async () => {
    site = await startSite({ "/notes": html(ARTICLE), "/latest": redirect("/notes", 301) });
    const output = await fetchPage(`${site.base}/latest`);
    expect(output.text).toMatch(
      /^# Release notes\nSource: http:\/\/127\.0\.0\.1:\d+\/notes \(redirected from .*\/latest\)/,
    );
    expect(output.text).toContain("Version 2 of the **widget** library is out.");
    expect(output.text).toContain(`[the config file](${site.base}/docs/config)`);
    expect(output.text).toMatch(/^-\s+Faster start-up, by a third/m);
    expect(output.text).toContain("```\nnpm install widget@2\n```");
    // Navigation and the footer are not the article.
    expect(output.text).not.toContain("Privacy");
    expect(output.data).toMatchObject({ status: 200, content_type: "text/html", cut: false });
  });

  it("returns JSON and text as they are, gzip or not, and refuses binary content", async () => {
    site = await startSite({
      "/api": json({ name: "widget", versions: [1, 2] }),
      "/notes.txt": (_req, res) =>
        res
          .writeHead(200, { "content-type": "text/plain", "content-encoding": "gzip" })
          .end(gzipSync("plain words\n")),
      "/logo.png": (_req, res) =>
        res
          .writeHead(200, { "content-type": "image/png" })
          .end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0])),
    });
    expect((await fetchPage(`${site.base}/api`)).text).toContain('{"name":"widget","versions":[1,2]}');
    expect((await fetchPage(`${site.base}/notes.txt`)).text).toContain("plain words");
    expect(await toolFailure(fetchPage(`${site.base}/logo.png`))).toMatch(
      /^Refused: .*\/logo\.png is image\/png \(7 bytes\), not something fetch_webpage reads/,
    );
  });

  it("says which status a page answered with", async () => {
    site = await startSite({ "/gone": (_req, res) => res.writeHead(410, "Gone").end("gone") });
    expect(await toolFailure(fetchPage(`${site.base}/gone`))).toMatch(/\/gone answered HTTP 410 Gone\.$/);
    expect(await toolFailure(fetchPage(`${site.base}/nowhere`))).toContain("answered HTTP 404");
  });

  it("refuses the machine itself and private addresses unless web.allow_private lists them, on every redirect too", async () => {
    site = await startSite({
      "/notes": html(ARTICLE),
      "/metadata": redirect("http://169.254.169.254/latest/meta-data/"),
      "/intranet": redirect("http://10.1.2.3/admin"),
    });
    const notAllowed = fetchTool({ allow_private: [] });
    expect(await toolFailure(notAllowed.execute({ url: `${site.base}/notes` }, toolContext()))).toMatch(
      /^Refused: 127\.0\.0\.1 is a loopback, link-local or private address.*web\.allow_private/,
    );
    expect(await toolFailure(fetchPage(`${site.base}/metadata`))).toMatch(
      /^Refused: 169\.254\.169\.254 is a loopback, link-local or private address/,
    );
    expect(await toolFailure(fetchPage(`${site.base}/intranet`))).toMatch(/^Refused: 10\.1\.2\.3 is/);
    // A name is resolved first: localhost is the machine itself.
    expect(
      await toolFailure(
        notAllowed.execute({ url: `http://localhost:${new URL(site.base).port}/notes` }, toolContext()),
      ),
    ).toMatch(/^Refused: localhost \((127\.0\.0\.1|::1)\) is a loopback/);
    // A range allows what is in it.
    expect((await fetchPage(`${site.base}/notes`, { allow_private: ["127.0.0.0/8"] })).text).toContain(
      "Release notes",
    );
    expect(site.requests.map((r) => r.url)).toEqual(["/metadata", "/intranet", "/notes"]);
  });

  it("bounds redirects, cuts a long page and a large download, and times out a slow page", async () => {
    const paragraph = `<p>${"All work and no play makes a dull page. ".repeat(50)}</p>`;
    site = await startSite({
      "/loop": redirect("/loop"),
      "/long": html(
        `<html><head><title>Long</title></head><body><article>${paragraph.repeat(40)}</article></body></html>`,
      ),
      "/huge": (_req, res) => {
        res.writeHead(200, { "content-type": "text/plain" });
        res.end("x".repeat(300_000));
      },
      "/slow": (_req, res) => {
        res.writeHead(200, { "content-type": "text/html" });
        res.write("<html><body><p>Loading");
      },
    });
    expect(await toolFailure(fetchPage(`${site.base}/loop`, { max_redirects: 3 }))).toMatch(
      /^Stopped after 3 redirects, at .*\/loop\.$/,
    );

    const long = await fetchPage(`${site.base}/long`, {}, 5_000);
    expect(long.text).toMatch(
      /\[Cut at 5000 of \d{5} characters\. Fetch again with max_chars up to 30000 for more\.\]$/,
    );
    expect(long.data).toMatchObject({ cut: true });

    const huge = await fetchPage(`${site.base}/huge`, { max_bytes: 100_000 });
    expect(huge.text).toContain(
      "[The download stopped at 100000 bytes (web.max_bytes); the rest was not read.]",
    );
    expect(huge.text).toContain("[Cut at 20000 of 100000 characters.");

    expect(await toolFailure(fetchPage(`${site.base}/slow`, { timeout_ms: 400 }))).toMatch(
      /^Timed out after 400 ms fetching .*\/slow\.$/,
    );
  });

  it("is not offered when web.enabled is false", () => {
    expect(webTools(configSchema.parse({ web: { enabled: false } }).web, {})).toEqual([]);
  });
});
