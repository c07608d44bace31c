import { mkdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import ini from "ini";
import { jsonrepair } from "jsonrepair";
import { z } from "zod";
import { writeFileAtomic } from "../platform/atomicFile.js";
import { truncateHeadTail } from "../platform/truncate.js";
import { type ResolvedPath, resolveInWorkspace } from "../safety/paths.js";
import { readable, resolveWritable } from "./credentialFiles.js";
import { toolDescription } from "./descriptions.js";
import { ToolError } from "./toolError.js";
import { defineTool, type ToolContext, type ToolOutput } from "./types.js";

interface Parsed {
  value: unknown;
  /** Something the model should know about how the file was read. */
  note?: string;
}

interface Format {
  /** The tool-name suffix: read_json, write_json, ... */
  id: "json" | "yaml" | "ini";
  label: string;
  parse(text: string): Parsed | Promise<Parsed>;
  /** `existing` is the file's current text, when there is one, to keep its style. */
  serialize(value: unknown, existing: string | undefined): string | Promise<string>;
}

const json: Format = {
  id: "json",
  label: "JSON",
  parse(text) {
    try {
      return { value: JSON.parse(text) };
    } catch (strictError) {
      // tsconfig.json and friends are JSON with comments and trailing commas: still worth reading.
      try {
        return {
          value: JSON.parse(jsonrepair(text)),
          note: `Not strict JSON (${(strictError as Error).message}); read leniently.`,
        };
      } catch {
        throw new ToolError(`Invalid JSON: ${(strictError as Error).message}`);
      }
    }
  },
  serialize(value, existing) {
    const indent = existing ? (/^([ \t]+)["{[\]}\d\-tfn]/m.exec(existing)?.[1] ?? "  ") : "  ";
    const newline = existing === undefined || existing.endsWith("\n") ? "\n" : "";
    return `${JSON.stringify(value, null, indent)}${newline}`;
  },
};

/** Loaded on first use: YAML is 72 modules, which a session that never reads YAML need not load. */
const loadYaml = () => import("yaml");

const yaml: Format = {
  id: "yaml",
  label: "YAML",
  async parse(text) {
    const YAML = await loadYaml();
    const documents = YAML.parseAllDocuments(text);
    const failure = documents.flatMap((document) => document.errors)[0];
    if (failure) throw new ToolError(`Invalid YAML: ${failure.message}`);
    if (documents.length <= 1) return { value: documents[0]?.toJS() ?? null };
    return {
      value: documents.map((document) => document.toJS()),
      note: `The file holds ${documents.length} YAML documents; shown as a list.`,
    };
  },
  async serialize(value) {
    return (await loadYaml()).stringify(value);
  },
};

const iniFormat: Format = {
  id: "ini",
  label: "INI",
  parse(text) {
    return { value: ini.parse(text) };
  },
  serialize(value) {
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      throw new ToolError("INI data must be an object: top-level keys, and objects for [sections].");
    }
    return ini.stringify(value, { whitespace: true });
  },
};

async function readExisting(file: ResolvedPath, ctx: ToolContext): Promise<string | undefined> {
  try {
    return await readFile(readable(ctx, file.absolute), "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return undefined;
    throw new ToolError(`Cannot read ${file.display}: ${code === "EISDIR" ? "it is a folder" : code}.`);
  }
}

/** The file tools' atomic write (flushed, then renamed into place), keeping an existing file's mode. */
async function writeAtomic(file: string, content: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const mode = (await stat(file).catch(() => undefined))?.mode;
  await writeFileAtomic(file, Buffer.from(content), mode === undefined ? undefined : mode & 0o7777);
}

/** Tool calls sometimes carry the data as a JSON string instead of as the value itself. */
function unwrapJsonString(data: unknown): unknown {
  if (typeof data !== "string") return data;
  try {
    const parsed: unknown = JSON.parse(data);
    return typeof parsed === "object" && parsed !== null ? parsed : data;
  } catch {
    return data;
  }
}

async function readStructured(format: Format, requested: string, ctx: ToolContext): Promise<ToolOutput> {
  const file = resolveInWorkspace(ctx, requested, "read");
  await ctx.reads?.remember(file.absolute);
  const text = await readExisting(file, ctx);
  if (text === undefined) throw new ToolError(`${file.display} does not exist.`);
  const parsed = await format.parse(text);
  const shown = truncateHeadTail(JSON.stringify(parsed.value, null, 2) ?? "null");
  return {
    text: parsed.note ? `${parsed.note}\n${shown.text}` : shown.text,
    data: shown.truncated
      ? { kind: "data_read", path: file.display, truncated: true }
      : { kind: "data_read", path: file.display, value: parsed.value },
  };
}

function readTool(format: Format) {
  return defineTool({
    name: `read_${format.id}`,
    description: toolDescription("read_data", { format: format.label }),
    schema: z.object({ path: z.string() }),
    permission: "read",
    kind: "read",
    execute: ({ path: requested }, ctx) => readStructured(format, requested, ctx),
    describe: ({ path: requested }) => requested,
    touches: ({ path: requested }) => ({ reads: [requested], writes: [] }),
  });
}

function writeTool(format: Format) {
  return defineTool({
    name: `write_${format.id}`,
    description: toolDescription("write_data", { format: format.label }),
    schema: z.object({
      path: z.string(),
      data: z.unknown().describe("An object, array or scalar"),
    }),
    permission: "write",
    kind: "edit",
    async execute({ path: requested, data }, ctx) {
      if (data === undefined) throw new ToolError("data is required: the value to write.");
      const file = resolveWritable(ctx, requested);
      const existing = await readExisting(file, ctx);
      if (existing !== undefined) await ctx.reads?.check(file.absolute, file.display);
      const content = await format.serialize(unwrapJsonString(data), existing);
      await writeAtomic(file.absolute, content);
      await ctx.reads?.remember(file.absolute);
      const bytes = Buffer.byteLength(content);
      return {
        text: `${existing === undefined ? "Created" : "Wrote"} ${file.display} (${bytes} bytes).`,
        data: { kind: "data_written", path: file.display, bytes, created: existing === undefined },
        changedFiles: [file.display],
      };
    },
    describe: ({ path: requested }) => requested,
    touches: ({ path: requested }) => ({ writes: [requested] }),
  });
}

export const dataTools = [json, yaml, iniFormat].flatMap((format) => [readTool(format), writeTool(format)]);
