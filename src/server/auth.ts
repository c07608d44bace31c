import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Context, MiddlewareHandler } from "hono";
import { getCookie, setCookie } from "hono/cookie";

/** A fresh access token: 32 random bytes, URL-safe. */
export function newToken(): string {
  return randomBytes(32).toString("base64url");
}

/** Compares in constant time, so the token cannot be guessed a character at a time. */
function sameToken(given: string, token: string): boolean {
  const digest = (text: string) => createHash("sha256").update(text).digest();
  return timingSafeEqual(digest(given), digest(token));
}

const LOOPBACK_NAMES = new Set(["127.0.0.1", "localhost", "[::1]", "::1"]);

export function isLoopback(host: string): boolean {
  return LOOPBACK_NAMES.has(host) || host.startsWith("127.");
}

/** The host name of a Host header, without its port. */
function hostName(header: string): string {
  return header.startsWith("[") ? header.slice(0, header.indexOf("]") + 1) : (header.split(":")[0] ?? "");
}

export interface GuardOptions {
  token: string;
  /** Bound to loopback: a request must also name a loopback host (no DNS rebinding). */
  loopback: boolean;
  /** The port, once listening: the cookie is named by it, so two servers on one machine keep theirs. */
  port: () => number;
}

function refuse(c: Context, status: 401 | 403, message: string): Response {
  return c.json({ error: message }, status);
}

/**
 * Every request needs the token: `Authorization: Bearer <token>`, the cookie set when a browser
 * opens the printed URL (`/?token=…`, then redirected to drop it from the address bar), or
 * `?token=` itself. A request from a page of another origin is refused whatever it carries (no
 * CORS, no cross-site requests riding on the cookie); on loopback, so is a Host header that is
 * not a loopback name, which is what a DNS-rebinding page would send.
 */
export function guard(options: GuardOptions): MiddlewareHandler {
  return async (c, next) => {
    const host = c.req.header("host") ?? "";
    if (options.loopback && !isLoopback(hostName(host)))
      return refuse(c, 403, `this server answers on loopback only, not as ${host || "an unnamed host"}.`);
    const origin = c.req.header("origin");
    if (origin !== undefined && origin !== `http://${host}`)
      return refuse(c, 403, "requests from other origins are refused (CORS is closed).");

    const cookieName = `cairn_token_${options.port()}`;
    const fromQuery = c.req.query("token");
    const bearer = /^Bearer\s+(\S+)$/i.exec(c.req.header("authorization") ?? "")?.[1];
    const given = bearer ?? fromQuery ?? getCookie(c, cookieName);
    if (given === undefined)
      return refuse(
        c,
        401,
        "missing token: send Authorization: Bearer <token>, or open the URL cairn serve printed.",
      );
    if (!sameToken(given, options.token)) return refuse(c, 401, "wrong token.");

    if (fromQuery !== undefined && c.req.method === "GET" && !c.req.path.startsWith("/api/")) {
      setCookie(c, cookieName, options.token, { httpOnly: true, sameSite: "Strict", path: "/" });
      const url = new URL(c.req.url);
      url.searchParams.delete("token");
      return c.redirect(`${url.pathname}${url.search}`, 302);
    }
    await next();
  };
}
