import type { Context } from "hono";
import type { z } from "zod";
import { describeIssue } from "../platform/issues.js";

/** Where a bad value was sent, as the message names it. */
const PLACE: Record<string, string> = {
  json: "",
  query: "query parameter ",
  param: "path parameter ",
  header: "header ",
  cookie: "cookie ",
};

function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let value = data;
  for (const key of path) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/**
 * One issue in the words the config loader and the tools use ("expected …, got …"), naming the
 * field. The validator does not keep the input in its issues, so the value is read back from the
 * request at the issue's path.
 */
function describe(issue: z.core.$ZodIssue, data: unknown, place: string): { field: string; message: string } {
  const field = issue.path.join(".");
  if (issue.code === "unrecognized_keys") {
    const keys = issue.keys.join(", ");
    const at = field ? ` in ${field}` : "";
    return {
      field: field || issue.keys[0] || "",
      message: `${place}${keys}${at}: not a field of this request (the API is described at /api/openapi.json)`,
    };
  }
  const message = describeIssue({ ...issue, input: valueAt(data, issue.path) } as z.core.$ZodIssue);
  return { field, message: `${place}${field || "the request"}: ${message}` };
}

/**
 * What a request that failed validation gets: 400 with every problem named by its field, never
 * zod's own report or a stack trace.
 */
export function invalidRequest(
  result: { success: boolean; target: string; data?: unknown; error?: z.ZodError },
  c: Context,
): Response | undefined {
  if (result.success || !result.error) return undefined;
  const place = PLACE[result.target] ?? "";
  const issues = result.error.issues.map((issue) => describe(issue, result.data, place));
  return c.json({ error: issues.map((issue) => issue.message).join("; "), issues }, 400);
}
