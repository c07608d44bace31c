import { z } from "zod";
import { formatCost, formatDuration } from "../platform/format.js";
import { prose } from "../platform/prose.js";
import { plural } from "../platform/text.js";
import { ToolError } from "../tools/toolError.js";
import { type AgentOutcome, type AgentRequest, defineTool, type ToolContext } from "../tools/types.js";
import { isExternalTarget } from "./targets.js";

/** The tools that start agents: a sub-agent is not given them unless its definition names them. */
export const AGENT_TOOL_NAMES = ["explore_codebase", "task"];

/** What the agent that handed over the job reads: the answer, and what the run took and changed. */
export function outcomeText(outcome: AgentOutcome): string {
  const facts = [
    plural(outcome.toolCalls, "tool call"),
    formatDuration(outcome.durationMs),
    formatCost(outcome.costUsd),
  ];
  const changed =
    outcome.filesChanged === undefined
      ? "Files changed: not known (the workspace is not a git repository)."
      : outcome.filesChanged.length
        ? `Files changed: ${outcome.filesChanged.join(", ")}`
        : "";
  const head =
    outcome.status === "done"
      ? `${outcome.id} finished (${facts.join(", ")}).`
      : `${outcome.id} ${outcome.status === "over_budget" ? "stopped over its budget" : "failed"}: ${outcome.detail ?? "no reason given"} (${facts.join(", ")}).`;
  return [head, changed, outcome.answer.trim()].filter(Boolean).join("\n\n");
}

async function delegate(request: AgentRequest, ctx: ToolContext) {
  if (!ctx.runAgent) throw new ToolError("Sub-agents are not available here.");
  const outcome = await ctx.runAgent(ctx.callId ? { ...request, callId: ctx.callId } : request);
  // A failed job is a result the model reads, as the error of this call: it can try another way.
  if (outcome.status !== "done") throw new ToolError(outcomeText(outcome));
  return {
    text: outcomeText(outcome),
    ...(outcome.filesChanged?.length ? { changedFiles: outcome.filesChanged } : {}),
  };
}

const exploreCodebase = defineTool({
  name: "explore_codebase",
  description: prose(new URL("./descriptions/explore_codebase.md", import.meta.url)),
  schema: z.object({
    question: z
      .string()
      .min(1)
      .describe("what to find out, with any names, paths or errors you already know"),
    focus: z.enum(["files", "analysis"]).optional(),
  }),
  permission: "read",
  kind: "search",
  describe: ({ question }) => question,
  // Its own calls are judged and checkpointed one by one.
  touches: () => ({ writes: [] }),
  execute: ({ question, focus }, ctx) =>
    delegate({ agent: "explore", prompt: question, focus: focus ?? "files" }, ctx),
});

const task = defineTool({
  name: "task",
  description: prose(new URL("./descriptions/task.md", import.meta.url)),
  schema: z.object({
    agent: z.string().min(1),
    prompt: z.string().min(1).describe("the whole job: the goal, the files involved, and what to report"),
  }),
  // The agent may change files; each of its own calls is judged again, an external agent as a command.
  permission: "write",
  kind: "other",
  asksInside: ({ agent }) => isExternalTarget(agent),
  describe: ({ agent }) => agent,
  // A cairn sub-agent's own calls are checkpointed one by one; what an external agent changes can
  // only be found by comparing the workspace around it.
  touches: ({ agent }) => ({ writes: isExternalTarget(agent) ? "unknown" : [] }),
  execute: ({ agent, prompt }, ctx) => delegate({ agent, prompt }, ctx),
});

export const agentTools = [exploreCodebase, task];
