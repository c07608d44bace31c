/**
 * What other agents call cairn's tools, and the plain words people and models use for what a
 * tool does: a model trained on another agent's tools asks for `WebFetch` or "curl", and
 * tool_search must know it means fetch_webpage.
 */

/** Claude Code's names of its tools, as cairn's (hook matchers and allowed tools use them too). */
export const CLAUDE_CODE_NAMES: Readonly<Record<string, string>> = {
  Bash: "run_command",
  Read: "read_file",
  Write: "write_file",
  Edit: "edit_file",
  MultiEdit: "edit_file",
  Glob: "search_files",
  Grep: "grep",
  LS: "list_files",
  WebFetch: "fetch_webpage",
  WebSearch: "web_search",
  TodoWrite: "todo_write",
  Task: "task",
};

/**
 * The names Codex, gemini-cli, opencode, Cline and Roo Code give the same tools, besides Claude
 * Code's. Looked up without case, `_` or `-` (`web_fetch` is `WebFetch`); cairn's own names win.
 */
const OTHER_AGENTS: Readonly<Record<string, string>> = {
  ...CLAUDE_CODE_NAMES,
  Agent: "task",
  // Codex
  shell: "run_command",
  exec_command: "run_command",
  local_shell: "run_command",
  apply_patch: "edit_file",
  list_dir: "list_files",
  grep_files: "grep",
  update_plan: "todo_write",
  // gemini-cli
  run_shell_command: "run_command",
  read_many_files: "read_file",
  replace: "edit_file",
  search_file_content: "grep",
  grep_search: "grep",
  list_directory: "list_files",
  google_web_search: "web_search",
  write_todos: "todo_write",
  // opencode
  list: "list_files",
  patch: "edit_file",
  // Cline and Roo Code
  execute_command: "run_command",
  write_to_file: "write_file",
  replace_in_file: "edit_file",
  apply_diff: "edit_file",
  browser_action: "fetch_webpage",
  use_mcp_tool: "call_mcp_tool",
  access_mcp_resource: "read_mcp_resource",
  ask_followup_question: "ask_user",
  new_task: "task",
};

/** Words for what a tool does that neither its name nor its description has. */
const PLAIN_WORDS: Readonly<Record<string, readonly string[]>> = {
  fetch_webpage: [
    "url",
    "link",
    "browse",
    "browser",
    "curl",
    "wget",
    "download",
    "website",
    "site",
    "http",
    "https",
    "html",
    "scrape",
    "open",
  ],
  web_search: ["google", "bing", "internet", "online", "lookup"],
  run_command: ["shell", "terminal", "bash", "exec", "execute", "script"],
  explore_codebase: ["investigate", "subagent", "codebase"],
  task: ["delegate", "subagent", "agent", "handoff", "spawn"],
  search_files: ["glob", "find"],
  grep: ["regex", "ripgrep", "rg"],
  list_files: ["ls", "dir", "directory"],
  edit_file: ["patch", "replace", "diff"],
  todo_write: ["todo", "checklist"],
  call_mcp_tool: ["mcp"],
  list_mcp_tools: ["mcp"],
};

const key = (name: string) => name.toLowerCase().replace(/[_-]/g, "");

const BY_KEY = new Map(Object.entries(OTHER_AGENTS).map(([name, tool]) => [key(name), tool]));

/** The cairn tool another agent's name stands for (`WebFetch`, `web_fetch`: fetch_webpage), if any. */
export function toolOfOtherName(name: string): string | undefined {
  return BY_KEY.get(key(name));
}

/** The plain words and other agents' names (as words) that say what a tool is for. */
export function aliasWords(tool: string): readonly string[] {
  const names = Object.entries(OTHER_AGENTS)
    .filter(([, cairn]) => cairn === tool)
    .map(([name]) => key(name));
  return [...(PLAIN_WORDS[tool] ?? []), ...names];
}
