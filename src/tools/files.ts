import { lstatSync, type Stats, statSync } from "node:fs";
import { mkdir, readdir, rename, unlink } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { copyFileAtomic } from "../platform/atomicFile.js";
import { plural } from "../platform/text.js";
import { type ResolvedPath, resolveInWorkspace } from "../safety/paths.js";
import { readable, resolveWritable } from "./credentialFiles.js";
import { toolDescription } from "./descriptions.js";
import { similarity } from "./edit/closest.js";
import { lineEnding, withLineEnding } from "./edit/lineEndings.js";
import { numberedLine } from "./edit/listing.js";
import type { EditRange } from "./editMatch.js";
import {
  readPage,
  readTextFile,
  type TextFile,
  type TextFormat,
  textFormatOf,
  writeTextFile,
} from "./fileText.js";
import { ToolError } from "./toolError.js";
import { type AnyTool, defineTool, type Tool, type ToolContext } from "./types.js";

const DEFAULT_LIMIT = 2000;
/** Files are rewritten in memory; past this size a command is the better tool. */
const MAX_REWRITE_BYTES = 16 * 1024 * 1024;
const PLAIN_UTF8: TextFormat = { encoding: "utf8", bom: false };

/** File-system failures the model can act on (permissions, a full disk, a wrong kind of path). */
const MODEL_FACING_ERRNO = new Set([
  "EACCES",
  "EPERM",
  "EROFS",
  "ENOSPC",
  "EDQUOT",
  "EISDIR",
  "ENOTDIR",
  "ENOTEMPTY",
  "EEXIST",
  "EINVAL",
  "EBUSY",
  "ENAMETOOLONG",
  "ELOOP",
  "EXDEV",
]);

function fileTool<S extends z.ZodType>(tool: Tool<S>): Tool<S> {
  return defineTool({
    ...tool,
    execute: (args, ctx) =>
      tool.execute(args, ctx).catch((error: unknown) => {
        const code = (error as NodeJS.ErrnoException).code;
        throw code && MODEL_FACING_ERRNO.has(code) ? new ToolError((error as Error).message) : error;
      }),
  });
}

/**
 * A file's stat, null when it is not there. One system call, made synchronously like the other
 * bounded look-ups of the file tools: handed to libuv's thread pool, each step of a call waited on
 * the scheduler when the machine was busy, several times a turn.
 */
function statOrNull(file: string, follow = true): Stats | null {
  try {
    return follow ? statSync(file) : lstatSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return null;
    throw error;
  }
}

function joinDisplay(dir: string, name: string): string {
  return dir === "." ? name : `${dir}/${name}`;
}

/** A missing path, with the names in the same folder that look like what was meant. */
async function missingFile(resolved: ResolvedPath): Promise<ToolError> {
  const folder = path.posix.dirname(resolved.display);
  const where = folder === "." ? "the workspace root" : folder;
  let entries: string[];
  try {
    entries = await readdir(path.dirname(resolved.absolute));
  } catch {
    return new ToolError(`No such file: ${resolved.display} (its folder ${where} does not exist either).`);
  }
  const wanted = path.basename(resolved.absolute).toLowerCase();
  const similar = entries
    .map((name) => ({ name, score: similarity(name.toLowerCase(), wanted) }))
    .filter((entry) => entry.score >= 0.5)
    .sort((a, b) => b.score - a.score)
    .slice(0, 5)
    .map((entry) => joinDisplay(folder, entry.name));
  const hint = similar.length > 0 ? ` Similar names in ${where}: ${similar.join(", ")}.` : "";
  return new ToolError(`No such file: ${resolved.display}.${hint}`);
}

/** An existing regular file, or a message saying what is there instead. */
async function existingFile(resolved: ResolvedPath): Promise<Stats> {
  const info = statOrNull(resolved.absolute);
  if (!info) throw await missingFile(resolved);
  if (info.isDirectory()) {
    throw new ToolError(`${resolved.display} is a directory, not a file (list_files shows what is in it).`);
  }
  // Reading a pipe or a device could block forever or never end.
  if (!info.isFile())
    throw new ToolError(`${resolved.display} is not a regular file (a device, socket or pipe).`);
  return info;
}

/** The named entry itself: deleting or moving a symlink must not touch what it points to. */
async function resolveEntry(ctx: ToolContext, requested: string): Promise<ResolvedPath> {
  const lexical = path.resolve(ctx.workspace, requested);
  const info = statOrNull(lexical, false);
  if (!info?.isSymbolicLink()) return resolveInWorkspace(ctx, requested, "write");
  const parent = resolveInWorkspace(ctx, path.dirname(lexical), "write");
  const name = path.basename(lexical);
  if (name === ".git") {
    throw new ToolError(`Refused: ${requested} is .git; use the git tools to change the repository.`);
  }
  return { absolute: path.join(parent.absolute, name), display: joinDisplay(parent.display, name) };
}

function refuseRoot(ctx: ToolContext, resolved: ResolvedPath, verb: string): void {
  if (resolved.absolute === ctx.workspace || ctx.extraRoots.includes(resolved.absolute)) {
    throw new ToolError(`Refused: ${resolved.display} is a workspace root; it cannot be ${verb}.`);
  }
}

async function refuseExisting(resolved: ResolvedPath): Promise<void> {
  const info = statOrNull(resolved.absolute, false);
  if (info) {
    const what = info.isDirectory() ? "a folder" : "a file";
    throw new ToolError(
      `Refused: ${resolved.display} already exists (${what}). Give the full path of a new file, ` +
        "or delete the existing one first if it really should be replaced.",
    );
  }
}

function countLines(text: string): number {
  if (text === "") return 0;
  const breaks = text.split("\n").length - 1;
  return text.endsWith("\n") ? breaks : breaks + 1;
}

function span(from: number, to: number): string {
  return from === to ? `${from}` : `${from}-${to}`;
}

function lineSpan(from: number, to: number): string {
  return from === to ? `line ${from}` : `lines ${from}-${to}`;
}

/** The diff package is loaded with the first change a session makes: most turns only read. */
async function unifiedDiff(display: string, before: string, after: string): Promise<string> {
  const { createPatch } = await import("diff");
  return createPatch(display, before, after, undefined, undefined, { context: 3 });
}

/** An existing file's text and format when it is text we can rewrite faithfully, else null. */
async function rewritableText(
  ctx: ToolContext,
  resolved: ResolvedPath,
  info: Stats,
): Promise<TextFile | null> {
  if (info.size > MAX_REWRITE_BYTES) return null;
  const { absolute, display } = resolved;
  return readTextFile(absolute, display, MAX_REWRITE_BYTES, ctx.editor?.files).catch((error: unknown) => {
    if (error instanceof ToolError) return null;
    throw error;
  });
}

// Relative to the workspace root, as the system prompt says once rather than every path of every
// tool (8 tokens each, in every request).
const pathParam = z.string().min(1);

const readFileTool = fileTool({
  name: "read_file",
  description: toolDescription("read_file", { limit: DEFAULT_LIMIT }),
  permission: "read",
  kind: "read",
  schema: z.object({
    path: pathParam,
    offset: z.number().int().min(1).optional().describe("1-based line to start at (default 1)"),
    limit: z.number().int().min(1).optional().describe(`Most lines to read (default ${DEFAULT_LIMIT})`),
  }),
  async execute(args, ctx) {
    const resolved = resolveInWorkspace(ctx, args.path, "read");
    const info = await existingFile(resolved);
    await ctx.reads?.remember(resolved.absolute);
    // A git config that holds credentials is read as commands see it: its copy without them.
    const source = readable(ctx, resolved.absolute);
    const size = source === resolved.absolute ? info.size : statSync(source).size;
    const format = textFormatOf(source, resolved.display, size);
    const first = args.offset ?? 1;
    const limit = args.limit ?? DEFAULT_LIMIT;
    const page = await readPage(source, format, first, limit, ctx.signal, ctx.editor?.files);
    const data = {
      kind: "file_read" as const,
      path: resolved.display,
      offset: first,
      lines: page.lines.length,
      total_lines: page.totalLines,
    };
    if (page.totalLines === 0) return { text: `${resolved.display} is empty.`, data };
    if (page.lines.length === 0) {
      throw new ToolError(
        `offset ${first} is past the end of ${resolved.display}, which has ${plural(page.totalLines ?? 0, "line")}.`,
      );
    }
    const body = page.lines.map((line, k) => numberedLine(first + k, line.text, line.length)).join("\n");
    if (!page.more) return { text: body, data };
    const next = first + page.lines.length;
    const remaining =
      page.totalLines === null ? "more lines follow" : `${page.totalLines - next + 1} more lines`;
    return { text: `${body}\n... ${remaining}; call read_file with offset=${next} to continue.`, data };
  },
  describe: ({ path }) => path,
  touches: ({ path }) => ({ reads: [path], writes: [] }),
});

const writeFileTool = fileTool({
  name: "write_file",
  description: toolDescription("write_file"),
  permission: "write",
  kind: "edit",
  schema: z.object({
    path: pathParam,
    content: z.string().describe("The whole new content"),
  }),
  async execute(args, ctx) {
    const resolved = resolveWritable(ctx, args.path);
    const info = statOrNull(resolved.absolute);
    if (info?.isDirectory())
      throw new ToolError(`${resolved.display} is a directory; give the path of a file.`);
    if (info) await ctx.reads?.check(resolved.absolute, resolved.display);
    const existing = info ? await rewritableText(ctx, resolved, info) : null;
    const before = existing?.text ?? "";
    const crlf = existing !== null && lineEnding(before) === "\r\n";
    const content = crlf ? withLineEnding(args.content, "\r\n") : args.content;
    const mode = info ? info.mode & 0o7777 : undefined;
    const unsaved = await writeTextFile(
      resolved.absolute,
      content,
      existing?.format ?? PLAIN_UTF8,
      mode,
      ctx.editor?.files,
    );
    await ctx.reads?.remember(resolved.absolute);
    const lines = plural(countLines(content), "line");
    const text = info
      ? `Overwrote ${resolved.display} (${lines}${crlf ? ", CRLF line endings kept" : ""}).`
      : `Created ${resolved.display} (${lines}).`;
    return {
      text: withNote(text, unsaved),
      data: {
        kind: "file_change",
        path: resolved.display,
        created: !info,
        diff: await unifiedDiff(resolved.display, before, content),
      },
      changedFiles: [resolved.display],
    };
  },
  describe: ({ path }) => path,
  touches: ({ path, content }) => ({ writes: [path], change: { path, old_text: null, new_text: content } }),
});

/** A tool's result with what the model is told of the person's unsaved text in their editor. */
function withNote(text: string, unsaved: string | undefined): string {
  return unsaved ? `${text} ${unsaved}` : text;
}

function describeRanges(display: string, ranges: EditRange[]): string {
  const [only] = ranges;
  if (ranges.length === 1 && only) {
    return (
      `Edited ${display}: replaced ${lineSpan(only.startLine, only.endLine)}; ` +
      `the new text is at ${lineSpan(only.newStartLine, only.newEndLine)}.`
    );
  }
  const shown = ranges.slice(0, 20).map((range) => span(range.newStartLine, range.newEndLine));
  const more = ranges.length > 20 ? `, and ${ranges.length - 20} more` : "";
  return `Edited ${display}: replaced ${ranges.length} occurrences; the new text is at lines ${shown.join(", ")}${more}.`;
}

const editFileTool = fileTool({
  name: "edit_file",
  description: toolDescription("edit_file"),
  permission: "write",
  kind: "edit",
  schema: z.object({
    path: pathParam,
    old_string: z.string().describe("The text to replace, with its indentation"),
    new_string: z.string().describe("Its replacement"),
    replace_all: z.boolean().optional().describe("Replace every occurrence (default false)"),
  }),
  async execute(args, ctx) {
    const resolved = resolveWritable(ctx, args.path);
    const info = statOrNull(resolved.absolute);
    if (!info && args.old_string === "") {
      await writeTextFile(resolved.absolute, args.new_string, PLAIN_UTF8, undefined, ctx.editor?.files);
      await ctx.reads?.remember(resolved.absolute);
      return {
        text: `Created ${resolved.display} (${plural(countLines(args.new_string), "line")}).`,
        data: {
          kind: "file_change",
          path: resolved.display,
          diff: await unifiedDiff(resolved.display, "", args.new_string),
        },
        changedFiles: [resolved.display],
      };
    }
    await existingFile(resolved);
    await ctx.reads?.check(resolved.absolute, resolved.display);
    const file = await readTextFile(
      resolved.absolute,
      resolved.display,
      MAX_REWRITE_BYTES,
      ctx.editor?.files,
    );
    const { findEdit } = await import("./editMatch.js");
    const result = findEdit(file.text, args.old_string, args.new_string, {
      replaceAll: args.replace_all ?? false,
    });
    if (!result.ok) {
      throw new ToolError(`Could not edit ${resolved.display}: ${result.message}`, {
        path: resolved.display,
        reason: result.reason,
        lines: result.lines,
      });
    }
    const unsaved = await writeTextFile(
      resolved.absolute,
      result.newContent,
      file.format,
      file.mode,
      ctx.editor?.files,
    );
    await ctx.reads?.remember(resolved.absolute);
    const note = result.note ? ` Note: ${result.note}.` : "";
    return {
      text: withNote(describeRanges(resolved.display, result.ranges) + note, unsaved),
      data: {
        kind: "file_change",
        path: resolved.display,
        diff: await unifiedDiff(resolved.display, file.text, result.newContent),
        strategy: result.strategy,
        ...(result.repairs.length ? { repairs: result.repairs } : {}),
      },
      changedFiles: [resolved.display],
    };
  },
  describe: ({ path }) => path,
  touches: ({ path, old_string, new_string }) => ({
    writes: [path],
    change: { path, old_text: old_string, new_text: new_string },
  }),
});

const appendFileTool = fileTool({
  name: "append_file",
  description: toolDescription("append_file"),
  permission: "write",
  kind: "edit",
  schema: z.object({
    path: pathParam,
    content: z.string(),
  }),
  async execute(args, ctx) {
    const resolved = resolveWritable(ctx, args.path);
    const info = statOrNull(resolved.absolute);
    if (info?.isDirectory())
      throw new ToolError(`${resolved.display} is a directory; give the path of a file.`);
    // Appending needs no up-to-date picture of the file, but must not make a stale one look current.
    const current = (await ctx.reads?.current(resolved.absolute)) ?? false;
    const existing = info
      ? await readTextFile(resolved.absolute, resolved.display, MAX_REWRITE_BYTES, ctx.editor?.files)
      : null;
    const before = existing?.text ?? "";
    const eol = lineEnding(before);
    const separator = before !== "" && !before.endsWith("\n") ? eol : "";
    const after = before + separator + (existing ? withLineEnding(args.content, eol) : args.content);
    const unsaved = await writeTextFile(
      resolved.absolute,
      after,
      existing?.format ?? PLAIN_UTF8,
      existing?.mode,
      ctx.editor?.files,
    );
    if (current) await ctx.reads?.remember(resolved.absolute);
    const added = plural(countLines(args.content), "line");
    const text = existing
      ? `Appended ${added} to ${resolved.display} (now ${plural(countLines(after), "line")}).` +
        (separator ? " It did not end with a line break, so one was added first." : "")
      : `Created ${resolved.display} with ${added}.`;
    return {
      text: withNote(text, unsaved),
      data: {
        kind: "file_change",
        path: resolved.display,
        diff: await unifiedDiff(resolved.display, before, after),
      },
      changedFiles: [resolved.display],
    };
  },
  describe: ({ path }) => path,
  touches: ({ path, content }) => ({ writes: [path], change: { path, old_text: null, new_text: content } }),
});

const deleteFileTool = fileTool({
  name: "delete_file",
  description: toolDescription("delete_file"),
  permission: "write",
  kind: "delete",
  schema: z.object({ path: pathParam }),
  async execute(args, ctx) {
    const resolved = await resolveEntry(ctx, args.path);
    refuseRoot(ctx, resolved, "deleted");
    const info = statOrNull(resolved.absolute, false);
    if (!info) throw await missingFile(resolved);
    if (info.isDirectory()) {
      throw new ToolError(
        `Refused: ${resolved.display} is a folder; delete_file removes single files only. ` +
          "Delete the files in it one by one, or use run_command if the whole folder really must go.",
      );
    }
    await unlink(resolved.absolute);
    return {
      text: `Deleted ${resolved.display}.`,
      data: { kind: "file_deleted", path: resolved.display },
      changedFiles: [resolved.display],
    };
  },
  describe: ({ path }) => path,
  touches: ({ path }) => ({ writes: [path] }),
});

const copyFileTool = fileTool({
  name: "copy_file",
  description: toolDescription("copy_file"),
  permission: "write",
  kind: "edit",
  schema: z.object({
    source: pathParam.describe("The file to copy, relative to the workspace root."),
    destination: pathParam.describe(
      "The full path of the copy, including its file name; must not exist yet.",
    ),
  }),
  async execute(args, ctx) {
    const source = resolveInWorkspace(ctx, args.source, "read");
    const destination = resolveWritable(ctx, args.destination);
    await existingFile(source);
    await refuseExisting(destination);
    await copyFileAtomic(readable(ctx, source.absolute), destination.absolute);
    return {
      text: `Copied ${source.display} to ${destination.display}.`,
      data: { kind: "file_copied", source: source.display, destination: destination.display },
      changedFiles: [destination.display],
    };
  },
  describe: ({ source, destination }) => `${source} → ${destination}`,
  touches: ({ source, destination }) => ({ reads: [source], writes: [destination] }),
});

const moveFileTool = fileTool({
  name: "move_file",
  description: toolDescription("move_file"),
  permission: "write",
  kind: "move",
  schema: z.object({
    source: pathParam.describe("The file or folder to move, relative to the workspace root."),
    destination: pathParam.describe("Its new full path, including the name; must not exist yet."),
  }),
  async execute(args, ctx) {
    const source = await resolveEntry(ctx, args.source);
    refuseRoot(ctx, source, "moved");
    const destination = resolveWritable(ctx, args.destination);
    const info = statOrNull(source.absolute, false);
    if (!info) throw await missingFile(source);
    await refuseExisting(destination);
    await mkdir(path.dirname(destination.absolute), { recursive: true });
    try {
      await rename(source.absolute, destination.absolute);
    } catch (error) {
      // Across file systems rename can't work; a single file can still be copied, then removed.
      if ((error as NodeJS.ErrnoException).code !== "EXDEV" || !info.isFile()) throw error;
      await copyFileAtomic(source.absolute, destination.absolute);
      await unlink(source.absolute);
    }
    return {
      text: `Moved ${source.display} to ${destination.display}.`,
      data: { kind: "file_moved", source: source.display, destination: destination.display },
      changedFiles: [source.display, destination.display],
    };
  },
  describe: ({ source, destination }) => `${source} → ${destination}`,
  touches: ({ source, destination }) => ({ writes: [source, destination] }),
});

export const fileTools: AnyTool[] = [
  readFileTool,
  writeFileTool,
  editFileTool,
  appendFileTool,
  deleteFileTool,
  copyFileTool,
  moveFileTool,
];
