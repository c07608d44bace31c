/**
 * Claude Code's names of its tools, as cairn's: so a hook's matcher or a command's allowed tools
 * written for Claude Code mean the same tools here.
 */
import { CLAUDE_CODE_NAMES as CLAUDE_TOOLS } from "../tools/otherNames.js";

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
