import { prose } from "../platform/prose.js";
import { WORKSPACE_TOOLS } from "../tools/workspaceTools.js";
import type { AgentDefinition } from "./definition.js";

/** What `explore_codebase` may look for: where things are, or how they work. */
export type ExploreFocus = "files" | "analysis";

/**
 * The tools an explorer gets: the workspace's tools that only read (files, searches, git's
 * read-only views, data files), taken from each tool's own permission, so that a read-only tool
 * added to the workspace's reaches the explorer without being listed here too.
 */
export const READ_ONLY_TOOLS: string[] = WORKSPACE_TOOLS.filter((tool) => tool.permission === "read").map(
  (tool) => tool.name,
);

const REPORT = prose(new URL("./prompts/report.md", import.meta.url));

const FOCUS_PROMPT: Record<ExploreFocus, string> = {
  files: prose(new URL("./prompts/explore-files.md", import.meta.url), { report: REPORT }),
  analysis: prose(new URL("./prompts/explore-analysis.md", import.meta.url), { report: REPORT }),
};

/** The read-only explorer behind `explore_codebase`, and the system prompt for each focus. */
export const EXPLORE: AgentDefinition = {
  name: "explore",
  description:
    "Read-only explorer: finds the files and line ranges that answer a question about the code, and reports them compactly.",
  prompt: FOCUS_PROMPT.files,
  tools: READ_ONLY_TOOLS,
  approval: "read-only",
  max_tool_calls: 25,
  source: { kind: "built-in" },
};

export function explorePrompt(focus: ExploreFocus): string {
  return FOCUS_PROMPT[focus];
}

/** A general-purpose agent with the session's tools, for a self-contained job handed over with `task`. */
export const GENERAL: AgentDefinition = {
  name: "general",
  description:
    "General-purpose coding agent with the session's tools: carries out a self-contained job and reports what it did.",
  prompt: prose(new URL("./prompts/general.md", import.meta.url)),
  source: { kind: "built-in" },
};

export const BUILT_IN_AGENTS: readonly AgentDefinition[] = [EXPLORE, GENERAL];
