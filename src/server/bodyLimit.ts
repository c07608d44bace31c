import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { describeSize } from "../tools/fileText.js";

/**
 * Refuses a request body over `maxBytes` before it is read whole: at once from its
 * Content-Length, or as soon as a chunked body passes the limit, holding no more than the limit
 * meanwhile. The rest of a refused body is left unread (the HTTP server drains a little, then
 * closes the connection).
 */
export function limitBodies(maxBytes: number): MiddlewareHandler {
  return bodyLimit({
    maxSize: maxBytes,
    onError: (c) =>
      c.json(
        {
          error:
            `the request body is over ${describeSize(maxBytes)}, the limit of this server ` +
            "(server.max_body_bytes in cairn's config): send less.",
          limit_bytes: maxBytes,
        },
        413,
      ),
  });
}
