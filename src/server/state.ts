import { OpenAPIHono } from "@hono/zod-openapi";
import type { SessionInfo, Store } from "../store/sessions.js";
import { ApiError } from "./apiError.js";
import type { LiveSessions } from "./live.js";
import { invalidRequest } from "./problems.js";
import { errorSchema, type SessionView } from "./schemas.js";
import type { Workspaces } from "./workspaces.js";

/** What every route reads: the store, the sessions running here, where sessions may run. */
export interface ServerState {
  store: Store;
  live: LiveSessions;
  workspaces: Workspaces;
  /** The environment sessions and checkpoints read (`XDG_DATA_HOME`, keys), without the token. */
  env: NodeJS.ProcessEnv;
  version: string;
}

/** A group of routes, validated by zod with the errors named by field. */
export function routes(): OpenAPIHono {
  return new OpenAPIHono({ defaultHook: invalidRequest });
}

/** A JSON response of the OpenAPI description. */
export function json<T>(schema: T, description: string) {
  return { description, content: { "application/json": { schema } } };
}

/** The refusals a route may answer with, each in the one error shape. */
export function refusals(...statuses: Array<400 | 403 | 404 | 409>) {
  const words = { 400: "bad input", 403: "not allowed", 404: "not found", 409: "not in a state to do that" };
  return Object.fromEntries(statuses.map((status) => [status, json(errorSchema, words[status])]));
}

/** A session by id, or a unique start or end of it; 404 when none, 400 when what was given fits several. */
export function findSession(state: ServerState, ref: string): SessionInfo {
  let found: SessionInfo | undefined;
  try {
    found = state.store.getSession(ref);
  } catch (error) {
    throw new ApiError(400, error instanceof Error ? error.message : String(error));
  }
  if (!found) throw new ApiError(404, `no session matches "${ref}".`);
  return found;
}

/**
 * A stored session as the API shows it: whether it runs in this server, and when it does and
 * waits for a person, `waiting` and what for.
 */
export function sessionView(state: ServerState, info: SessionInfo): SessionView {
  const live = state.live.get(info.id);
  const waitingFor = (live?.pending() ?? []).flatMap((event): SessionView["waiting_for"] => {
    const agent = event.agent ? { agent: event.agent } : {};
    if (event.type === "approval.requested")
      return [{ request_id: event.request_id, kind: "approval", summary: event.prompt.summary, ...agent }];
    if (event.type === "question.asked")
      return [{ request_id: event.request_id, kind: "question", summary: event.question, ...agent }];
    return [];
  });
  return {
    ...info,
    status: waitingFor.length ? "waiting" : info.status,
    live: live !== undefined,
    waiting_for: waitingFor,
  };
}
