import { realpathSync } from "node:fs";
import path from "node:path";
import { createRoute, z } from "@hono/zod-openapi";
import { storedView } from "../../agent/conversation.js";
import type { ConfigFlags } from "../../config/load.js";
import type { SessionInfo } from "../../store/sessions.js";
import { timeline } from "../../ui/sessionExport.js";
import { ApiError } from "../apiError.js";
import { eventStream } from "../events.js";
import {
  acceptedSchema,
  answerSchema,
  approvalSchema,
  listQuerySchema,
  messageSchema,
  requestRefSchema,
  type SessionView,
  sessionDetailSchema,
  sessionRefSchema,
  sessionSchema,
  startedSchema,
  startSchema,
} from "../schemas.js";
import { findSession, json, refusals, routes, type ServerState, sessionView } from "../state.js";

const tags = ["sessions"];

function body<T>(schema: T) {
  return { body: { content: { "application/json": { schema } }, required: true } };
}

/** The folder a filter names, as the store keeps it (a real path when it exists). */
function storedPath(folder: string): string {
  try {
    return realpathSync(folder);
  } catch {
    return path.resolve(folder);
  }
}

const list = createRoute({
  method: "get",
  path: "/api/sessions",
  tags,
  summary: "sessions, newest first, filtered",
  request: { query: listQuerySchema },
  responses: { 200: json(z.object({ sessions: z.array(sessionSchema) }), "the sessions"), ...refusals(400) },
});

const show = createRoute({
  method: "get",
  path: "/api/sessions/{id}",
  tags,
  summary: "one session: its record, timeline, pending requests, TODO list and cost by phase",
  request: { params: sessionRefSchema },
  responses: { 200: json(sessionDetailSchema, "the session"), ...refusals(400, 404) },
});

const events = createRoute({
  method: "get",
  path: "/api/sessions/{id}/events",
  tags,
  summary: "the session's events as Server-Sent Events: the stored ones, then live ones until it ends here",
  description:
    "Each event is one `data:` line of JSON with `id:` its seq. A reconnect with `Last-Event-ID` (or `?after=<seq>`) " +
    "gets exactly the events after it. The stream ends with an `end` event when the session is not (or no longer) running in this server.",
  request: {
    params: sessionRefSchema,
    query: z.object({ after: z.coerce.number().int().min(0).optional() }),
    headers: z.object({ "last-event-id": z.coerce.number().int().min(0).optional() }),
  },
  responses: {
    200: { description: "an event stream", content: { "text/event-stream": { schema: z.string() } } },
    ...refusals(400, 404),
  },
});

const start = createRoute({
  method: "post",
  path: "/api/sessions",
  tags,
  summary:
    "start a do, run or chat session in an allowed workspace; answers once it is stored, not when it ends",
  request: body(startSchema),
  responses: { 201: json(startedSchema, "started"), ...refusals(400, 403, 409) },
});

const message = createRoute({
  method: "post",
  path: "/api/sessions/{id}/messages",
  tags,
  summary: "send the next message to a live chat session",
  request: { params: sessionRefSchema, ...body(messageSchema) },
  responses: { 202: json(acceptedSchema, "accepted"), ...refusals(400, 404, 409) },
});

const approve = createRoute({
  method: "post",
  path: "/api/sessions/{id}/approvals/{request_id}",
  tags,
  summary: "answer a pending approval (approval.requested)",
  request: { params: requestRefSchema, ...body(approvalSchema) },
  responses: { 200: json(acceptedSchema, "answered"), ...refusals(400, 404, 409) },
});

const answer = createRoute({
  method: "post",
  path: "/api/sessions/{id}/questions/{request_id}",
  tags,
  summary: "answer a pending question (question.asked)",
  request: { params: requestRefSchema, ...body(answerSchema) },
  responses: { 200: json(acceptedSchema, "answered"), ...refusals(400, 404, 409) },
});

const cancel = createRoute({
  method: "post",
  path: "/api/sessions/{id}/cancel",
  tags,
  summary: "stop what the session is doing; it ends as cancelled, keeping its work",
  request: { params: sessionRefSchema },
  responses: { 202: json(acceptedSchema, "cancelling"), ...refusals(400, 404, 409) },
});

const resume = createRoute({
  method: "post",
  path: "/api/sessions/{id}/resume",
  tags,
  summary:
    "continue a stored session in this server: an unfinished do or run from where it stopped, or a chat",
  request: { params: sessionRefSchema },
  responses: { 200: json(startedSchema, "running again"), ...refusals(400, 403, 404, 409) },
});

/** The stored sessions as the list shows them, filtered by what they show: a session waiting for a person here is `waiting`, not `running`. */
function listedSessions(state: ServerState, query: z.infer<typeof listQuerySchema>): SessionView[] {
  const workspace = query.workspace === undefined ? undefined : storedPath(query.workspace);
  const needle = query.q?.toLowerCase();
  return state.store
    .listSessions(workspace ? { workspace } : {})
    .map((s) => sessionView(state, s))
    .filter(
      (s) =>
        (!query.status || s.status === query.status) &&
        (!query.mode || s.mode === query.mode) &&
        (!needle || s.task.toLowerCase().includes(needle)),
    )
    .slice(0, query.limit);
}

/** Starts a session as asked, in an allowed workspace, under a session id not taken; its id once it is stored. */
async function startSession(state: ServerState, request: z.infer<typeof startSchema>): Promise<string> {
  const workspace = state.workspaces.resolve(request.workspace);
  const flags: ConfigFlags = {
    model: request.model,
    approval: request.approval,
    maxIterations: request.max_iterations,
    maxCost: request.max_cost_usd,
    maxTokens: request.max_tokens,
    timeout: request.timeout_s,
    verify: request.verify,
  };
  if (request.session_id !== undefined && state.store.sessionExists(request.session_id))
    throw new ApiError(
      409,
      `session_id ${request.session_id} is taken: a session by that id exists. Choose another.`,
    );
  const started = await state.live.start({
    mode: request.mode,
    task: request.task,
    workspace,
    flags,
    ...(request.session_id !== undefined ? { sessionId: request.session_id } : {}),
    ...(request.context !== undefined ? { context: request.context } : {}),
  });
  return started.id;
}

/** Runs a stored session again in this server, if it is not running anywhere and has something left to do. */
async function resumeSession(state: ServerState, info: SessionInfo): Promise<string> {
  if (state.live.get(info.id))
    throw new ApiError(409, `session ${info.id} is already running in this server.`);
  if (info.status === "running")
    throw new ApiError(409, `session ${info.id} is still running in another cairn process.`);
  if (info.mode !== "chat" && info.status === "completed")
    throw new ApiError(409, `session ${info.id} already completed; there is nothing to resume.`);
  const workspace = state.workspaces.resolve(info.workspace);
  await state.live.start({
    mode: info.mode,
    task: info.task,
    workspace,
    flags: { model: info.model },
    resume: info.id,
  });
  return info.id;
}

export function sessionRoutes(state: ServerState) {
  const { store, live } = state;
  const liveOf = (ref: string) => live.require(findSession(state, ref).id);
  return routes()
    .openapi(list, (c) => c.json({ sessions: listedSessions(state, c.req.valid("query")) }, 200))
    .openapi(show, (c) => {
      const info = findSession(state, c.req.valid("param").id);
      const stored = store.events(info.id);
      const { result, todos } = storedView(stored);
      return c.json(
        {
          session: sessionView(state, info),
          timeline: timeline(stored),
          pending: live.get(info.id)?.pending() ?? [],
          result: result ?? null,
          todos,
          costs_by_phase: store.costs({ groupBy: "phase", sessionId: info.id }),
        },
        200,
      );
    })
    .openapi(events, (c) => {
      const info = findSession(state, c.req.valid("param").id);
      const after = c.req.valid("header")["last-event-id"] ?? c.req.valid("query").after ?? 0;
      return eventStream(c, store, live.get(info.id), info.id, after);
    })
    .openapi(start, async (c) => {
      const id = await startSession(state, c.req.valid("json"));
      return c.json({ session: sessionView(state, findSession(state, id)) }, 201);
    })
    .openapi(message, (c) => {
      liveOf(c.req.valid("param").id).message(c.req.valid("json").text);
      return c.json({ ok: true as const }, 202);
    })
    .openapi(approve, async (c) => {
      const { id, request_id } = c.req.valid("param");
      const { choice, reason } = c.req.valid("json");
      await liveOf(id).submit({ type: "approve", request_id, choice, ...(reason ? { reason } : {}) });
      return c.json({ ok: true as const }, 200);
    })
    .openapi(answer, async (c) => {
      const { id, request_id } = c.req.valid("param");
      await liveOf(id).submit({ type: "answer", request_id, answer: c.req.valid("json").answer });
      return c.json({ ok: true as const }, 200);
    })
    .openapi(cancel, (c) => {
      liveOf(c.req.valid("param").id).cancel();
      return c.json({ ok: true as const }, 202);
    })
    .openapi(resume, async (c) => {
      const id = await resumeSession(state, findSession(state, c.req.valid("param").id));
      return c.json({ session: sessionView(state, findSession(state, id)) }, 200);
    });
}
