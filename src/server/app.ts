import { OpenAPIHono } from "@hono/zod-openapi";
import { HTTPException } from "hono/http-exception";
import { secureHeaders } from "hono/secure-headers";
import { ConfigError } from "../platform/errors.js";
import { readableStack } from "../platform/stack.js";
import { ApiError } from "./apiError.js";
import { type GuardOptions, guard } from "./auth.js";
import { limitBodies } from "./bodyLimit.js";
import { dashboardRoutes } from "./dashboard.js";
import { recordRoutes } from "./routes/records.js";
import { sessionRoutes } from "./routes/sessions.js";
import type { ServerState } from "./state.js";

export const OPENAPI_PATH = "/api/openapi.json";

/**
 * The whole server as one Hono app: the guard first (token, host, origin), the bound on request
 * bodies, then the API, its
 * OpenAPI description and the dashboard. Every error leaves as JSON with a message; a bug's
 * stack goes to the server's log, never to the client.
 */
export interface AppOptions {
  access: GuardOptions;
  /** The largest request body read (`server.max_body_bytes`). */
  maxBodyBytes: number;
  log: (message: string) => void;
}

export function buildApp(state: ServerState, { access, maxBodyBytes, log }: AppOptions) {
  const app = new OpenAPIHono();
  app.use(
    secureHeaders({
      contentSecurityPolicy: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", "data:"],
        connectSrc: ["'self'"],
        frameAncestors: ["'none'"],
        baseUri: ["'none'"],
        formAction: ["'self'"],
      },
      // The printed URL carries the token: no page may pass it on as a referrer.
      referrerPolicy: "no-referrer",
      // Plain HTTP on loopback: HSTS would say nothing true.
      strictTransportSecurity: false,
    }),
  );
  // Bodies are read only from those who hold the token, and only so far.
  app.use(guard(access));
  app.use(limitBodies(maxBodyBytes));
  app.route("/", sessionRoutes(state));
  app.route("/", recordRoutes(state));
  app.openAPIRegistry.registerComponent("securitySchemes", "token", {
    type: "http",
    scheme: "bearer",
    description: "the token cairn serve printed (or was given with --token / CAIRN_SERVER_TOKEN)",
  });
  app.doc31(OPENAPI_PATH, {
    openapi: "3.1.0",
    info: {
      title: "cairn",
      version: state.version,
      description:
        "Sessions, their live events, approvals, costs and checkpoints of a cairn serve. See docs/server.md.",
    },
    security: [{ token: [] }],
  });
  app.route("/", dashboardRoutes());

  app.notFound((c) => c.json({ error: `no such endpoint: ${c.req.method} ${c.req.path}` }, 404));
  app.onError((error, c) => {
    if (error instanceof ApiError) return c.json({ error: error.message, ...error.extra }, error.status);
    if (error instanceof ConfigError) return c.json({ error: error.message }, 400);
    if (error instanceof HTTPException) {
      const message =
        error.status === 415 ? "send the body as JSON, with Content-Type: application/json." : error.message;
      return c.json({ error: message }, error.status);
    }
    log(`${c.req.method} ${c.req.path} failed: ${readableStack(error)}`);
    return c.json({ error: `internal error: ${error.message}` }, 500);
  });
  return app;
}
