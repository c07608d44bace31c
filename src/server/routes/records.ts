import { createRoute, z } from "@hono/zod-openapi";
import { dataDir } from "../../config/load.js";
import { APPROVAL_MODES } from "../../config/schema.js";
import { MODES } from "../../events/types.js";
import { sumCostTotals } from "../../model/usage.js";
import { parseSince } from "../../platform/since.js";
import { CheckpointError, Checkpoints, UndoRefused } from "../../store/checkpoints.js";
import { COST_GROUPS } from "../../store/sessions.js";
import { ApiError } from "../apiError.js";
import {
  checkpointsQuerySchema,
  checkpointsSchema,
  costsQuerySchema,
  costsSchema,
  errorSchema,
  infoSchema,
  SESSION_STATUSES,
  undoneSchema,
  undoSchema,
} from "../schemas.js";
import { json, refusals, routes, type ServerState } from "../state.js";

const costs = createRoute({
  method: "get",
  path: "/api/costs",
  tags: ["costs"],
  summary:
    "tokens and dollars of every model call, by day, model, phase or workspace (and within each, by another)",
  request: { query: costsQuerySchema },
  responses: { 200: json(costsSchema, "the groups and their total"), ...refusals(400) },
});

const checkpoints = createRoute({
  method: "get",
  path: "/api/checkpoints",
  tags: ["checkpoints"],
  summary: "the snapshots taken before cairn changed files in a workspace, newest first",
  request: { query: checkpointsQuerySchema },
  responses: { 200: json(checkpointsSchema, "the checkpoints"), ...refusals(400, 403) },
});

const undo = createRoute({
  method: "post",
  path: "/api/checkpoints/undo",
  tags: ["checkpoints"],
  summary: "restore a workspace's files as they were before a checkpoint (default: the latest)",
  request: { body: { content: { "application/json": { schema: undoSchema } }, required: true } },
  responses: {
    200: json(undoneSchema, "undone"),
    409: json(
      errorSchema.extend({ conflicts: z.array(z.object({ path: z.string(), reason: z.string() })) }),
      "refused: files changed since cairn left them; nothing was touched (force overrides)",
    ),
    ...refusals(400, 403),
  },
});

const info = createRoute({
  method: "get",
  path: "/api/info",
  tags: ["server"],
  summary: "the server: its version, the workspaces sessions may run in, the cost groupings it knows",
  responses: { 200: json(infoSchema, "the server") },
});

/** Runs checkpoint work in an allowed workspace; a reference that fits nothing is bad input. */
async function withCheckpoints<T>(
  state: ServerState,
  workspace: string | undefined,
  work: (checkpoints: Checkpoints) => Promise<T>,
): Promise<T> {
  const checkpoints = await Checkpoints.open(state.workspaces.resolve(workspace), {
    dataDir: dataDir(state.env),
  });
  try {
    return await work(checkpoints);
  } catch (error) {
    if (error instanceof UndoRefused) throw new ApiError(409, error.message, { conflicts: error.conflicts });
    if (error instanceof CheckpointError) throw new ApiError(400, error.message);
    throw error;
  }
}

/** Costs, checkpoints and undo, and what the server itself is. */
export function recordRoutes(state: ServerState) {
  return routes()
    .openapi(costs, (c) => {
      const query = c.req.valid("query");
      const since = query.since === undefined ? undefined : parseSince(query.since);
      const groups = state.store.costs({
        groupBy: query.by,
        ...(query.split ? { splitBy: query.split } : {}),
        ...(since ? { since } : {}),
        ...(query.session ? { sessionId: query.session } : {}),
      });
      return c.json(
        {
          by: query.by,
          split: query.split ?? null,
          since: since?.toISOString() ?? null,
          groups,
          total: sumCostTotals(groups),
        },
        200,
      );
    })
    .openapi(checkpoints, async (c) => {
      const query = c.req.valid("query");
      const list = await withCheckpoints(state, query.workspace, (store) => store.list(query.session));
      return c.json({ checkpoints: list }, 200);
    })
    .openapi(undo, async (c) => {
      const request = c.req.valid("json");
      const result = await withCheckpoints(state, request.workspace, (store) =>
        store.undo(request.checkpoint, { force: request.force }),
      );
      return c.json(result, 200);
    })
    .openapi(info, (c) =>
      c.json(
        {
          version: state.version,
          workspaces: state.workspaces.roots,
          cost_groups: [...COST_GROUPS],
          modes: [...MODES],
          statuses: [...SESSION_STATUSES],
          approval_modes: [...APPROVAL_MODES],
        },
        200,
      ),
    );
}
