import { readFile } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { plural } from "../platform/text.js";
import { toolDescription } from "./descriptions.js";
import { type GitStatus, gitStatus } from "./git.js";
import {
  DEFAULT_MAX_RESULTS,
  type GrepOptions,
  type GrepResult,
  grepWithJs,
  grepWithRipgrep,
  RipgrepUnusable,
} from "./grep.js";
import { ToolError } from "./toolError.js";
import { defineTool, type ToolContext, type ToolOutput } from "./types.js";
import {
  compileGlob,
  listDirectory,
  type Scope,
  scopeFor,
  secretsNote,
  type WorkspaceEntry,
  walkFiles,
} from "./workspaceFiles.js";

async function listFiles(
  ctx: ToolContext,
  requested: string | undefined,
  pattern: string | undefined,
  limit: number,
): Promise<ToolOutput> {
  const scope = await scopeFor(ctx, requested);
  const files: string[] = [];
  const secrets: WorkspaceEntry[] = [];
  let more = false;
  for await (const entry of walkFiles(scope, pattern ? compileGlob(pattern) : undefined, secrets)) {
    if (files.length === limit) {
      more = true;
      break;
    }
    files.push(entry.path);
  }
  const where = `${requested ?? "the workspace"}${pattern ? ` matching ${pattern}` : ""}`;
  const notes = [
    more ? `(first ${limit} files shown; there are more: narrow the path or pattern)` : "",
    secretsNote(secrets.length, "listed"),
  ].filter(Boolean);
  const text = files.length === 0 ? `No files in ${where}.` : files.join("\n");
  return {
    text: [text, ...notes].join("\n"),
    data: { kind: "listing", files, truncated: more },
  };
}

const listFilesTool = defineTool({
  name: "list_files",
  description: toolDescription("list_files"),
  schema: z.object({
    path: z.string().optional().describe("Folder to list, relative to the workspace (default: all of it)"),
    pattern: z
      .string()
      .optional()
      .describe("Glob filter: without '/' it matches file names (*.ts), with '/' workspace-relative paths"),
    limit: z.number().int().min(1).max(5000).optional().describe("Most files to return (default 500)"),
  }),
  permission: "read",
  kind: "search",
  execute: ({ path: requested, pattern, limit }, ctx) => listFiles(ctx, requested, pattern, limit ?? 500),
  describe: ({ path: requested, pattern }) => requested ?? pattern ?? "",
  touches: ({ path: requested }) => ({ reads: [requested ?? "."], writes: [] }),
});

const GLOB_SYNTAX = /[*?[\]{}!]/;

const searchFilesTool = defineTool({
  name: "search_files",
  description: toolDescription("search_files"),
  schema: z.object({
    pattern: z.string().min(1).describe("Glob, or part of a file name"),
  }),
  permission: "read",
  kind: "search",
  execute: ({ pattern }, ctx) =>
    listFiles(ctx, undefined, GLOB_SYNTAX.test(pattern) ? pattern : `*${pattern}*`, 200),
  describe: ({ pattern }) => pattern,
  touches: () => ({ reads: ["."], writes: [] }),
});

const TREE_MAX_LINES = 400;
const TREE_MAX_PER_FOLDER = 60;

function describeCounts(entries: WorkspaceEntry[]): string {
  const folders = entries.filter((entry) => entry.dir).length;
  const files = entries.length - folders;
  if (entries.length === 0) return "empty";
  const parts = [];
  if (files) parts.push(plural(files, "file"));
  if (folders) parts.push(plural(folders, "folder"));
  return parts.join(", ");
}

/** Folders first: the shape of the project reads better before the files beside it. */
function foldersFirst(entries: WorkspaceEntry[]): WorkspaceEntry[] {
  return [...entries.filter((entry) => entry.dir), ...entries.filter((entry) => !entry.dir)];
}

async function renderTree(
  scope: Scope,
  depth: number,
): Promise<{ lines: string[]; hidden: number; secrets: number; cut: boolean }> {
  const lines: string[] = [];
  let hidden = 0;
  let secrets = 0;
  let cut = false;
  const visit = async (
    dir: string,
    levels: Scope["levels"],
    level: number,
    indent: string,
  ): Promise<void> => {
    const listing = await listDirectory(scope, dir, levels);
    hidden += listing.hidden;
    secrets += listing.secrets.length;
    const ordered = foldersFirst(listing.entries);
    for (const [index, entry] of ordered.entries()) {
      if (lines.length >= TREE_MAX_LINES) {
        cut = true;
        return;
      }
      if (index === TREE_MAX_PER_FOLDER) {
        lines.push(`${indent}… ${ordered.length - index} more`);
        return;
      }
      const name = path.basename(entry.absolute);
      if (!entry.dir) {
        lines.push(`${indent}${name}`);
      } else if (level >= depth) {
        const inside = await listDirectory(scope, entry.absolute, listing.levels);
        lines.push(`${indent}${name}/ (${describeCounts(inside.entries)})`);
      } else {
        lines.push(`${indent}${name}/`);
        await visit(entry.absolute, listing.levels, level + 1, `${indent}  `);
      }
    }
  };
  await visit(scope.root, scope.levels, 1, "  ");
  return { lines, hidden, secrets, cut };
}

const fileTreeTool = defineTool({
  name: "file_tree",
  description: toolDescription("file_tree"),
  schema: z.object({
    path: z.string().optional().describe("Folder to show, relative to the workspace (default: its root)"),
    depth: z.number().int().min(1).max(10).optional().describe("Levels of folders to expand (default 3)"),
  }),
  permission: "read",
  kind: "search",
  async execute({ path: requested, depth }, ctx) {
    const scope = await scopeFor(ctx, requested);
    if (scope.rootIsFile) throw new ToolError(`${requested} is a file; file_tree shows folders.`);
    const tree = await renderTree(scope, depth ?? 3);
    const notes = [];
    if (tree.cut) notes.push(`(cut at ${TREE_MAX_LINES} lines: ask for a subfolder or a smaller depth)`);
    if (tree.hidden)
      notes.push(`(${tree.hidden} entries hidden: ignored by .gitignore, or .git/node_modules)`);
    if (tree.secrets) notes.push(secretsNote(tree.secrets, "shown"));
    const header = `${requested ?? "."}/`;
    return {
      text: [header, ...tree.lines, ...notes].join("\n"),
      data: { kind: "tree", lines: tree.lines.length, hidden: tree.hidden, truncated: tree.cut },
    };
  },
  describe: ({ path: requested }) => requested ?? "",
  touches: ({ path: requested }) => ({ reads: [requested ?? "."], writes: [] }),
});

/**
 * ripgrep when it is installed and can answer exactly as the JS search would; the JS search
 * otherwise, so results never depend on which one ran.
 */
async function grep(options: GrepOptions): Promise<GrepResult & { engine: "ripgrep" | "js" }> {
  try {
    return { ...(await grepWithRipgrep(options)), engine: "ripgrep" };
  } catch (error) {
    if (!(error instanceof RipgrepUnusable)) throw error;
    return { ...(await grepWithJs(options)), engine: "js" };
  }
}

const grepTool = defineTool({
  name: "grep",
  description: toolDescription("grep"),
  schema: z.object({
    pattern: z.string().min(1).describe("Regular expression, matched against each line"),
    path: z.string().optional().describe("File or folder to search (default: the whole workspace)"),
    glob: z.string().optional().describe("Only files matching this glob, e.g. *.ts or src/**/*.py"),
    ignore_case: z.boolean().optional().describe("Match case-insensitively"),
    max_results: z.number().int().min(1).max(2000).optional().describe("Most hits to return (default 100)"),
  }),
  permission: "read",
  kind: "search",
  async execute({ pattern, path: requested, glob, ignore_case, max_results }, ctx) {
    const result = await grep({
      workspace: ctx.workspace,
      extraRoots: ctx.extraRoots,
      pattern,
      path: requested,
      glob,
      ignoreCase: ignore_case,
      maxResults: max_results ?? DEFAULT_MAX_RESULTS,
      signal: ctx.signal,
      ...(ctx.secrets ? { secrets: ctx.secrets } : {}),
    });
    const data = { kind: "grep" as const, hits: result.hits, capped: result.capped, engine: result.engine };
    const skipped = secretsNote(result.secrets, "searched");
    if (result.hits.length === 0) {
      const none = `No matches for /${pattern}/ in ${requested ?? "the workspace"}.`;
      return { text: skipped ? `${none}\n${skipped}` : none, data };
    }
    const lines = result.hits.map((hit) => `${hit.path}:${hit.line}:${hit.text}`);
    if (result.capped) {
      lines.push(
        `(first ${result.hits.length} matches shown; there are more: narrow the pattern, path or glob)`,
      );
    }
    if (skipped) lines.push(skipped);
    return { text: lines.join("\n"), data };
  },
  // The folder searched when one is named, else the pattern: as calls have always been titled.
  describe: ({ pattern, path: requested }) => requested ?? pattern,
  touches: ({ path: requested }) => ({ reads: [requested ?? "."], writes: [] }),
});

const LANGUAGES: Record<string, string> = {
  ts: "TypeScript",
  tsx: "TypeScript",
  mts: "TypeScript",
  cts: "TypeScript",
  js: "JavaScript",
  jsx: "JavaScript",
  mjs: "JavaScript",
  cjs: "JavaScript",
  py: "Python",
  go: "Go",
  rs: "Rust",
  java: "Java",
  kt: "Kotlin",
  scala: "Scala",
  rb: "Ruby",
  php: "PHP",
  cs: "C#",
  c: "C",
  h: "C",
  cc: "C++",
  cpp: "C++",
  hpp: "C++",
  swift: "Swift",
  m: "Objective-C",
  sh: "Shell",
  bash: "Shell",
  lua: "Lua",
  el: "Emacs Lisp",
  lisp: "Lisp",
  clj: "Clojure",
  ex: "Elixir",
  exs: "Elixir",
  erl: "Erlang",
  hs: "Haskell",
  ml: "OCaml",
  dart: "Dart",
  zig: "Zig",
  vue: "Vue",
  svelte: "Svelte",
  html: "HTML",
  css: "CSS",
  scss: "CSS",
  sql: "SQL",
};

/** Enough files to tell a project's languages apart without walking a monorepo to the end. */
const LANGUAGE_SAMPLE = 20_000;

async function countLanguages(scope: Scope): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  let seen = 0;
  for await (const file of walkFiles(scope)) {
    if (++seen > LANGUAGE_SAMPLE) break;
    const language = LANGUAGES[path.extname(file.path).slice(1).toLowerCase()];
    if (language) counts[language] = (counts[language] ?? 0) + 1;
  }
  return counts;
}

const clip = (text: string, max = 80): string => (text.length > max ? `${text.slice(0, max)}…` : text);

const LOCKFILES: Record<string, string> = {
  "package-lock.json": "npm",
  "pnpm-lock.yaml": "pnpm",
  "yarn.lock": "yarn",
  "bun.lock": "bun",
  "bun.lockb": "bun",
};

/** What a build file says about how to build and test the project, in one line. */
const TOOLING: Record<string, (text: string, topLevel: Set<string>) => string> = {
  "package.json": (text, topLevel) => {
    let manifest: { name?: string; scripts?: Record<string, string> };
    try {
      manifest = JSON.parse(text);
    } catch {
      return "not valid JSON";
    }
    const manager = Object.keys(LOCKFILES).find((lock) => topLevel.has(lock));
    const scripts = Object.entries(manifest.scripts ?? {}).map(
      ([name, script]) => `${name} (${clip(script, 60)})`,
    );
    return [
      manifest.name ? `name ${manifest.name}` : "",
      `package manager ${manager ? LOCKFILES[manager] : "npm (no lockfile)"}`,
      scripts.length ? `scripts: ${scripts.join(", ")}` : "no scripts",
    ]
      .filter(Boolean)
      .join("; ");
  },
  "tsconfig.json": () => "TypeScript",
  "pyproject.toml": (text) => {
    const name = /^\[(?:project|tool\.poetry)\][^[]*?^name\s*=\s*["']([^"']+)/m.exec(text)?.[1];
    const tools = [...new Set([...text.matchAll(/^\[tool\.([\w-]+)/gm)].map((m) => m[1]))];
    return [name ? `name ${name}` : "", tools.length ? `tools: ${tools.join(", ")}` : ""]
      .filter(Boolean)
      .join("; ");
  },
  "requirements.txt": () => "Python requirements",
  "setup.py": () => "Python setuptools",
  "go.mod": (text) => {
    const module = /^module\s+(\S+)/m.exec(text)?.[1];
    const version = /^go\s+(\S+)/m.exec(text)?.[1];
    return [module ? `module ${module}` : "", version ? `go ${version}` : ""].filter(Boolean).join("; ");
  },
  "Cargo.toml": (text) => {
    const name = /^\[package\][^[]*?^name\s*=\s*"([^"]+)"/m.exec(text)?.[1];
    return [name ? `crate ${name}` : "", /^\[workspace\]/m.test(text) ? "workspace" : ""]
      .filter(Boolean)
      .join("; ");
  },
  Makefile: (text) => {
    const targets = [...text.matchAll(/^([A-Za-z0-9][\w.\-/]*)\s*:(?!=)/gm)].map((m) => m[1]);
    return targets.length ? `targets: ${[...new Set(targets)].slice(0, 20).join(", ")}` : "no targets";
  },
  "CMakeLists.txt": () => "CMake",
  "pom.xml": () => "Maven",
  "build.gradle": () => "Gradle",
  "build.gradle.kts": () => "Gradle",
  Gemfile: () => "Bundler",
};

async function detectTooling(workspace: string, topLevel: Set<string>): Promise<Record<string, string>> {
  const found: Record<string, string> = {};
  for (const [file, describe] of Object.entries(TOOLING)) {
    if (!topLevel.has(file)) continue;
    const text = await readFile(path.join(workspace, file), "utf8").catch(() => "");
    found[file] = describe(text, topLevel);
  }
  return found;
}

/** The status, or why there is none. */
function describeGit(status: GitStatus | string): string {
  if (typeof status === "string") return status;
  const branch = status.branch ? `branch ${status.branch}` : "detached HEAD";
  const untracked = status.files.filter((file) => file.index === "?").length;
  const changed = status.files.length - untracked;
  if (status.files.length === 0) return `${branch}, clean`;
  return `${branch}, ${changed} changed and ${untracked} untracked files`;
}

const TOP_LEVEL_SHOWN = 60;

const workspaceInfoTool = defineTool({
  name: "workspace_info",
  description: toolDescription("workspace_info"),
  schema: z.object({}),
  permission: "read",
  kind: "read",
  async execute(_args, ctx) {
    const scope = await scopeFor(ctx);
    const top = await listDirectory(scope, scope.root, scope.levels);
    const names = top.entries.map((entry) => path.basename(entry.absolute));
    const git = scope.inGitRepo
      ? await gitStatus(ctx).catch((error: unknown) => {
          if (error instanceof ToolError) return error.message;
          throw error;
        })
      : "not a git repository";
    const languages = Object.entries(await countLanguages(scope)).sort((a, b) => b[1] - a[1]);
    const tooling = await detectTooling(ctx.workspace, new Set(names));
    const entries = foldersFirst(top.entries).map(
      (entry) => `${path.basename(entry.absolute)}${entry.dir ? "/" : ""}`,
    );
    const lines = [
      `Workspace: ${ctx.workspace}`,
      `Git: ${describeGit(git)}`,
      `Languages: ${languages.length ? languages.map(([name, count]) => `${name} (${plural(count, "file")})`).join(", ") : "none recognised"}`,
      ...(Object.keys(tooling).length
        ? ["Tooling:", ...Object.entries(tooling).map(([file, about]) => `  ${file}: ${about}`)]
        : ["Tooling: no build files recognised at the top level"]),
      `Top level: ${entries.slice(0, TOP_LEVEL_SHOWN).join(", ")}${
        entries.length > TOP_LEVEL_SHOWN ? `, … ${entries.length - TOP_LEVEL_SHOWN} more` : ""
      }${top.hidden ? ` (+${top.hidden} ignored)` : ""}${top.secrets.length ? ` ${secretsNote(top.secrets.length, "shown")}` : ""}`,
    ];
    return {
      text: lines.join("\n"),
      data: {
        kind: "workspace",
        root: ctx.workspace,
        git:
          typeof git === "string"
            ? null
            : { branch: git.branch, upstream: git.upstream, files: git.files.length },
        languages: Object.fromEntries(languages),
        tooling,
        top_level: entries,
      },
    };
  },
  describe: () => "",
  touches: () => ({ reads: ["."], writes: [] }),
});

export const exploreTools = [listFilesTool, fileTreeTool, searchFilesTool, grepTool, workspaceInfoTool];
