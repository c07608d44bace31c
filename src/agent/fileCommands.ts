import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { isInside } from "../platform/text.js";

/**
 * A plain-language file command read into the one tool call it means (Codur's textual
 * pre-plan): "move a.txt to b.txt", "copy …", "delete a.txt", "write 'text' to f",
 * "append 'text' to f", "replace hi with bye in a.txt". Only what is unambiguous without a model
 * is read: the paths exist (or, for a destination, do not yet), the text to write is quoted, and
 * the text to replace occurs exactly once. Anything else is left to the model.
 */
export interface FileCommand {
  tool: "move_file" | "copy_file" | "delete_file" | "write_file" | "append_file" | "edit_file";
  args: Record<string, string>;
  reason: string;
}

/** A path as typed: in backticks or quotes, or one word. */
const PATH = "(`[^`]+`|\"[^\"]+\"|'[^']+'|[^\\s`\"']+)";
/** Text given literally: in backticks or quotes. */
const QUOTED = "(`[^`]*`|\"[^\"]*\"|'[^']*')";
/** Text to find or put in its place: quoted, or one word. */
const WORD = "(`[^`]+`|\"[^\"]+\"|'[^']+'|[^\\s`\"']+)";
const THE_FILE = "(?:the\\s+)?(?:file\\s+|folder\\s+)?";

const MOVE = new RegExp(`^(?:move|mv|rename)\\s+${THE_FILE}${PATH}\\s+(?:to|into|as)\\s+${PATH}$`, "i");
const COPY = new RegExp(`^(?:copy|cp|duplicate)\\s+${THE_FILE}${PATH}\\s+(?:to|into|as)\\s+${PATH}$`, "i");
const DELETE = new RegExp(`^(?:delete|remove|rm)\\s+${THE_FILE}${PATH}$`, "i");
const WRITE = new RegExp(`^(?:write|put|save)\\s+${QUOTED}\\s+(?:to|in|into)\\s+${THE_FILE}${PATH}$`, "i");
const APPEND = new RegExp(`^(?:append|add)\\s+${QUOTED}\\s+(?:to|at the end of)\\s+${THE_FILE}${PATH}$`, "i");
const REPLACE = new RegExp(`^replace\\s+${WORD}\\s+with\\s+${WORD}\\s+in\\s+${THE_FILE}${PATH}$`, "i");

function unquote(text: string): string {
  const first = text[0];
  return text.length >= 2 && (first === "`" || first === '"' || first === "'") && text.at(-1) === first
    ? text.slice(1, -1)
    : text;
}

/** A line of text to put in a file ends with a line break, as files do. */
function asLine(text: string): string {
  return text.endsWith("\n") ? text : `${text}\n`;
}

type Kind = "file" | "folder" | undefined;

/** What a typed path names inside the workspace, as a workspace path; undefined when it leaves it. */
function place(workspace: string, typed: string): { path: string; kind: Kind } | undefined {
  const full = path.resolve(workspace, unquote(typed));
  if (!isInside(workspace, full) || full === workspace) return undefined;
  let kind: Kind;
  try {
    kind = statSync(full).isDirectory() ? "folder" : "file";
  } catch {
    kind = undefined;
  }
  return { path: path.relative(workspace, full), kind };
}

/** Where a moved or copied entry goes: the path given, or inside it when it is a folder. Undefined when taken. */
function destination(workspace: string, source: string, typed: string): string | undefined {
  const target = place(workspace, typed);
  if (!target) return undefined;
  if (target.kind === undefined) return target.path;
  if (target.kind === "file") return undefined;
  const inside = place(workspace, path.join(target.path, path.basename(source)));
  return inside && inside.kind === undefined ? inside.path : undefined;
}

function occurrences(text: string, needle: string): number {
  let count = 0;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) count++;
  return count;
}

function transfer(
  tool: "move_file" | "copy_file",
  match: RegExpExecArray,
  workspace: string,
): FileCommand | undefined {
  const source = place(workspace, match[1]!);
  if (!source?.kind || (tool === "copy_file" && source.kind !== "file")) return undefined;
  const target = destination(workspace, source.path, match[2]!);
  if (!target) return undefined;
  const verb = tool === "move_file" ? "move" : "copy";
  return {
    tool,
    args: { source: source.path, destination: target },
    reason: `a plain file command: ${verb} ${source.path} to ${target}`,
  };
}

/** The tool call a message means, when it is a file command that needs no model; undefined otherwise. */
export function parseFileCommand(task: string, workspace: string): FileCommand | undefined {
  const text = task.trim().replace(/[.!]$/, "");
  const move = MOVE.exec(text);
  if (move) return transfer("move_file", move, workspace);
  const copy = COPY.exec(text);
  if (copy) return transfer("copy_file", copy, workspace);
  const remove = DELETE.exec(text);
  if (remove) {
    const file = place(workspace, remove[1]!);
    if (file?.kind !== "file") return undefined;
    return {
      tool: "delete_file",
      args: { path: file.path },
      reason: `a plain file command: delete ${file.path}`,
    };
  }
  for (const [pattern, tool] of [
    [WRITE, "write_file"],
    [APPEND, "append_file"],
  ] as const) {
    const match = pattern.exec(text);
    const file = match && place(workspace, match[2]!);
    if (!match) continue;
    if (!file || file.kind === "folder") return undefined;
    return {
      tool,
      args: { path: file.path, content: asLine(unquote(match[1]!)) },
      reason: `a plain file command: ${tool === "write_file" ? "write" : "append"} the quoted text to ${file.path}`,
    };
  }
  const replace = REPLACE.exec(text);
  if (replace) {
    const [before, after] = [unquote(replace[1]!), unquote(replace[2]!)];
    const file = place(workspace, replace[3]!);
    if (file?.kind !== "file" || before === "" || before === after) return undefined;
    let content: string;
    try {
      content = readFileSync(path.resolve(workspace, file.path), "utf8");
    } catch {
      return undefined;
    }
    if (occurrences(content, before) !== 1) return undefined;
    return {
      tool: "edit_file",
      args: { path: file.path, old_string: before, new_string: after },
      reason: `a plain file command: replace the one "${before}" in ${file.path}`,
    };
  }
  return undefined;
}
