import http, { type IncomingHttpHeaders, type IncomingMessage } from "node:http";
import https from "node:https";
import type { Readable } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import { ToolError } from "../tools/toolError.js";
import type { AddressGuard } from "./address.js";

export interface WebRequest {
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
  timeoutMs: number;
  /** Bytes of the (decompressed) body read; the rest is not downloaded. */
  maxBytes: number;
  maxRedirects: number;
  signal: AbortSignal;
  /** Refuses private addresses, on the first request and on every redirect. */
  guard?: AddressGuard;
}

export interface WebResponse {
  /** Where the body came from, after redirects. */
  url: string;
  status: number;
  statusText: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** The body was longer than `maxBytes`: only its start was read. */
  cut: boolean;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export const USER_AGENT = "Mozilla/5.0 (compatible; cairn; +https://github.com/cairn-agent/cairn)";

/** An http(s) URL, or a clear refusal of anything else. */
export function webUrl(text: string, base?: URL): URL {
  let url: URL;
  try {
    url = new URL(text, base);
  } catch {
    throw new ToolError(`${text} is not a URL; give a full http:// or https:// address.`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new ToolError(`${url.protocol} URLs are not fetched; only http:// and https://.`);
  return url;
}

function send(url: URL, request: WebRequest, method: string, body: string | undefined) {
  const client = url.protocol === "https:" ? https : http;
  return new Promise<IncomingMessage>((resolve, reject) => {
    const req = client.request(url, {
      method,
      headers: {
        "user-agent": USER_AGENT,
        "accept-encoding": "gzip, deflate, br",
        ...request.headers,
        ...(body !== undefined ? { "content-length": String(Buffer.byteLength(body)) } : {}),
      },
      signal: request.signal,
      ...(request.guard ? { lookup: request.guard.lookup } : {}),
    });
    req.once("response", resolve);
    req.once("error", reject);
    req.end(body);
  });
}

function decoded(response: IncomingMessage): Readable {
  switch (response.headers["content-encoding"]?.toLowerCase()) {
    case "gzip":
    case "x-gzip":
      return response.pipe(createGunzip());
    case "deflate":
      return response.pipe(createInflate());
    case "br":
      return response.pipe(createBrotliDecompress());
    default:
      return response;
  }
}

async function readBody(
  response: IncomingMessage,
  maxBytes: number,
): Promise<{ body: Buffer; cut: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of decoded(response)) {
    const buffer = chunk as Buffer;
    if (size + buffer.length > maxBytes) {
      chunks.push(buffer.subarray(0, maxBytes - size));
      response.destroy();
      return { body: Buffer.concat(chunks), cut: true };
    }
    chunks.push(buffer);
    size += buffer.length;
  }
  return { body: Buffer.concat(chunks), cut: false };
}

/**
 * One HTTP(S) exchange with redirects followed up to a bound, the body read up to a size, the
 * whole bounded in time, each hop's address checked by the guard when there is one.
 */
export async function webRequest(start: URL, request: WebRequest): Promise<WebResponse> {
  const timeout = AbortSignal.timeout(request.timeoutMs);
  const bounded = { ...request, signal: AbortSignal.any([request.signal, timeout]) };
  let url = start;
  let method = request.method ?? "GET";
  let body = request.body;
  try {
    for (let hops = 0; ; hops++) {
      request.guard?.checkLiteral(url.hostname);
      const response = await send(url, bounded, method, body);
      const status = response.statusCode ?? 0;
      const location = response.headers.location;
      if (REDIRECTS.has(status) && location) {
        response.resume();
        if (hops >= request.maxRedirects)
          throw new ToolError(`Stopped after ${request.maxRedirects} redirects, at ${url.href}.`);
        url = webUrl(location, url);
        // As browsers do: a 303, and a POST answered with 301 or 302, continue as a GET.
        if (status === 303 || (method === "POST" && status !== 307 && status !== 308)) {
          method = "GET";
          body = undefined;
        }
        continue;
      }
      const read = await readBody(response, request.maxBytes);
      return {
        url: url.href,
        status,
        statusText: response.statusMessage ?? "",
        headers: response.headers,
        ...read,
      };
    }
  } catch (error) {
    if (timeout.aborted) throw new ToolError(`Timed out after ${request.timeoutMs} ms fetching ${url.href}.`);
    if (request.signal.aborted || error instanceof ToolError) throw error;
    const cause = (error as Error & { cause?: unknown }).cause;
    if (cause instanceof ToolError) throw cause;
    throw new ToolError(`Could not fetch ${url.href}: ${(error as Error).message}.`);
  }
}
