import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { expect } from "vitest";
import { ToolError } from "../../src/tools/toolError.js";
import type { ToolContext } from "../../src/tools/types.js";

/** What a web tool needs of a turn: a signal (the rest is for file tools). */
export const toolContext = (): ToolContext => ({
  workspace: "/tmp",
  extraRoots: [],
  signal: new AbortController().signal,
  step: "test",
  commandTimeoutMs: 10_000,
});

/** The message of the ToolError a call ends with: what the model is told. */
export async function toolFailure(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ToolError);
  return (error as ToolError).message;
}

/** A page of a site: navigation and a footer around an article, as real pages have. */
export const ARTICLE = `<!doctype html>
<html><head><title>Release notes</title></head>
<body>
<nav><a href="/">Home</a> · <a href="/blog">Blog</a> · <a href="/about">About</a></nav>
<article>
<h1>Release notes</h1>
<p>Version 2 of the <strong>widget</strong> library is out. It reads configuration from
<a href="/docs/config">the config file</a> and no longer needs the environment variables
that version 1 read at start-up. Upgrading takes one command and no code changes for most
projects; the <em>migration guide</em> covers the rest.</p>
<h2>Changes</h2>
<ul><li>Faster start-up, by a third on large projects.</li><li>A new <code>--dry-run</code> flag.</li></ul>
<pre><code>npm install widget@2</code></pre>
<p>Thanks to everyone who reported issues and tested the release candidates over the last
two months; the changelog lists every contribution by name.</p>
</article>
<footer>© Widget Inc · <a href="/privacy">Privacy</a></footer>
</body></html>`;

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

export interface Site {
  base: string;
  requests: Array<{ method: string; url: string; headers: IncomingMessage["headers"]; body: string }>;
  close(): Promise<void>;
}

/** An HTTP server on 127.0.0.1 answering each path with its handler; 404 otherwise. */
export async function startSite(routes: Record<string, Handler>): Promise<Site> {
  const requests: Site["requests"] = [];
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      requests.push({ method: req.method ?? "GET", url: req.url ?? "/", headers: req.headers, body });
      const path = (req.url ?? "/").split("?")[0] ?? "/";
      const handler = routes[path];
      if (handler) handler(req, res, body);
      else res.writeHead(404, { "content-type": "text/plain" }).end("not found");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const html =
  (body: string): Handler =>
  (_req, res) =>
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(body);

export const json =
  (value: unknown): Handler =>
  (_req, res) =>
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(value));

export const redirect =
  (location: string, status = 302): Handler =>
  (_req, res) =>
    res.writeHead(status, { location }).end();
