/**
 * `call_tool`: how the model calls a tool offered on demand, whose definition tool_search gave
 * it, without that tool being added to the request's tools (which would make the provider's
 * cached prompt prefix, tools first, all new). It is in every request beside tool_search; the
 * call is taken apart before it runs, so the tool it names is what is judged, hooked, shown and
 * run, while the history keeps the call as the model wrote it.
 */
import { z } from "zod";
import type { ToolDefinition } from "../model/stream.js";
import { toolDescription } from "./descriptions.js";
import { wireSchema } from "./wireSchema.js";

export const CALL_TOOL = "call_tool";

export const callToolSchema = z.looseObject({
  name: z.string().min(1),
  arguments: z.looseObject({}).optional(),
});

let definition: ToolDefinition | undefined;

export function callToolDefinition(): ToolDefinition {
  definition ??= {
    name: CALL_TOOL,
    description: toolDescription(CALL_TOOL),
    parameters: wireSchema(callToolSchema),
  };
  return definition;
}

/**
 * The call inside: the tool's name and its arguments; when `arguments` is missing, what was
 * written beside `name` (`{"name": "web_search", "query": "…"}`) is taken for them.
 */
export function innerCall(args: z.infer<typeof callToolSchema>): { name: string; input: unknown } {
  const { name, arguments: inner, ...beside } = args;
  return { name, input: inner ?? beside };
}
