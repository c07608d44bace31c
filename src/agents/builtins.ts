import type { AgentDefinition } from "./definition.js";

/** What `explore_codebase` may look for: where things are, or how they work. */
export type ExploreFocus = "files" | "analysis";

/** The tools an explorer gets: reading, searching and git's read-only views, nothing that changes anything. */
export const READ_ONLY_TOOLS = [
  "read_file",
  "list_files",
  "file_tree",
  "search_files",
  "grep",
  "workspace_info",
  "git_status",
  "git_diff",
  "git_log",
  "read_json",
  "read_yaml",
  "read_ini",
];

const REPORT = `Answer with a compact report, not file dumps:
- the relevant files, each with the line ranges that matter (path:start-end) and one line on what that code does;
- then, in a few sentences, the answer to the question.
Quote code only when a line or two says it better than words. If you could not find something, say where you looked.`;

const FOCUS_PROMPT: Record<ExploreFocus, string> = {
  files: `You are a file-system explorer working for a coding agent. Find where things are in this repository: which files, which functions or sections, which line ranges. Search first (grep, search_files, file_tree), then read only the parts you need to be sure.

${REPORT}`,
  analysis: `You are a code analyst working for a coding agent. Work out how the code the question is about works: the flow of control and data, the contracts between the parts, and anything surprising. Search to find the code, then read what you need to understand it.

${REPORT}`,
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
  prompt: `You are a coding agent carrying out one self-contained job for another agent, in a developer's repository. Read before you change anything, make the smallest change that does the job, and check it with the project's own commands when that makes sense.

When you are done, answer with what you did (the files you changed), how you checked it, and anything left undone. Be brief: your answer is all the other agent sees.`,
  source: { kind: "built-in" },
};

export const BUILT_IN_AGENTS: readonly AgentDefinition[] = [EXPLORE, GENERAL];
