/**
 * Claude Code's names of its tools, as cairn's: so a hook's matcher or a command's allowed tools
 * written for Claude Code mean the same tools here.
 */
const CLAUDE_TOOLS: Record<string, string> = {
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

/** A tool's name as cairn knows it: Claude Code's mapped to cairn's, `mcp__server__tool` as `server__tool`. */
export function cairnToolName(name: string): string {
  const mcp = /^mcp__([^_]+(?:_[^_]+)*)__(.+)$/.exec(name);
  if (mcp) return `${mcp[1]}__${mcp[2]}`;
  return CLAUDE_TOOLS[name] ?? name;
}

/** Claude Code's names that stand for a cairn tool (`run_command`: Bash), for matching a pattern written for either. */
export function claudeNamesOf(tool: string): string[] {
  return Object.entries(CLAUDE_TOOLS)
    .filter(([, cairn]) => cairn === tool)
    .map(([claude]) => claude);
}
