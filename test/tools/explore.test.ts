import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findExecutable } from "../../src/platform/processes.js";
import { PathError } from "../../src/safety/paths.js";
import { exploreTools } from "../../src/tools/explore.js";
import type { AnyTool, ToolContext } from "../../src/tools/types.js";
import { tempDir } from "../helpers/temp.js";
import { toolContext } from "../helpers/tools.js";

let workspace: string;
let ctx: ToolContext;

function write(file: string, content = "") {
  mkdirSync(path.dirname(path.join(workspace, file)), { recursive: true });
  writeFileSync(path.join(workspace, file), content);
}

function call(name: string, args: Record<string, unknown> = {}) {
  const tool: AnyTool = exploreTools.find((candidate) => candidate.name === name)!;
  return tool.execute(tool.schema.parse(args), ctx);
}

beforeAll(() => {
  workspace = tempDir("cairn-explore-");
  ctx = toolContext(workspace);
  write(".gitignore", "dist/\n*.log\n");
  write("package.json", JSON.stringify({ name: "demo", scripts: { test: "vitest run", build: "tsc" } }));
  write("package-lock.json", "{}");
  write("tsconfig.json", "{}");
  write("go.mod", "module example.com/demo\n\ngo 1.22\n");
  write("Makefile", ".PHONY: test\nbuild:\n\tgo build\ntest: build\n\tgo test ./...\nVAR := 1\n");
  write("README.md", "# demo\n");
  write("src/index.ts", "export const answer = 42;\n");
  write("src/util.ts", "export function helper() { return 'TODO'; }\n");
  write("src/components/button.tsx", "export const Button = () => null; // TODO style\n");
  write("src/components/deep/er/most.ts", "");
  write("main.go", "package main\n");
  write("dist/bundle.js", "bundled TODO\n");
  write("server.log", "TODO log\n");
  write("node_modules/lib/index.js", "module.exports = 'TODO';\n");
  write(".github/workflows/ci.yml", "on: push\n");
  for (let index = 0; index < 70; index++) write(`many/file${String(index).padStart(2, "0")}.txt`);
  execFileSync("git", ["init", "-q", "-b", "trunk"], { cwd: workspace });
});
afterAll(() => rmSync(workspace, { recursive: true, force: true }));

describe("list_files", () => {
  it("lists files recursively, honouring .gitignore and skipping .git and node_modules", async () => {
    const result = await call("list_files", { path: "src" });
    expect(result.text).toBe(
      ["src/components/button.tsx", "src/components/deep/er/most.ts", "src/index.ts", "src/util.ts"].join(
        "\n",
      ),
    );
    const all = (await call("list_files", { limit: 5000 })).text.split("\n");
    expect(all).toContain(".github/workflows/ci.yml");
    expect(all).toContain(".gitignore");
    expect(all.some((file) => /^(dist|node_modules|\.git)\/|\.log$/.test(file))).toBe(false);
  });

  it("filters by glob and says when the limit cut the list", async () => {
    expect((await call("list_files", { pattern: "*.ts" })).text).toBe(
      "src/components/deep/er/most.ts\nsrc/index.ts\nsrc/util.ts",
    );
    const limited = await call("list_files", { path: "many", limit: 3 });
    expect(limited.text).toBe(
      "many/file00.txt\nmany/file01.txt\nmany/file02.txt\n(first 3 files shown; there are more: narrow the path or pattern)",
    );
    expect(limited.data).toMatchObject({ truncated: true });
  });

  it("lists an ignored folder or node_modules when asked for it by name", async () => {
    expect((await call("list_files", { path: "dist" })).text).toBe("dist/bundle.js");
    expect((await call("list_files", { path: "node_modules/lib" })).text).toBe("node_modules/lib/index.js");
  });

  it("refuses paths outside the workspace and reports missing ones", async () => {
    await expect(call("list_files", { path: "../" })).rejects.toBeInstanceOf(PathError);
    await expect(call("list_files", { path: "nope" })).rejects.toThrow(/nope does not exist/);
  });
});

describe("search_files", () => {
  it("finds files by glob or by part of the name", async () => {
    expect((await call("search_files", { pattern: "**/*.tsx" })).text).toBe("src/components/button.tsx");
    expect((await call("search_files", { pattern: "util" })).text).toBe("src/util.ts");
    expect((await call("search_files", { pattern: "*.js" })).text).toBe(
      "No files in the workspace matching *.js.",
    );
  });
});

describe("file_tree", () => {
  it("shows folders first, summarises deeper folders and counts what it hid", async () => {
    const result = await call("file_tree", { depth: 2 });
    const lines = result.text.split("\n");
    expect(lines.slice(0, 8)).toEqual([
      "./",
      "  .github/",
      "    workflows/ (1 file)",
      "  many/",
      "    file00.txt",
      "    file01.txt",
      "    file02.txt",
      "    file03.txt",
    ]);
    expect(lines).toContain("    … 10 more");
    expect(lines).toContain("  src/");
    expect(lines).toContain("    components/ (1 file, 1 folder)");
    expect(lines.indexOf("  src/")).toBeLessThan(lines.indexOf("  .gitignore"));
    expect(lines.at(-1)).toBe("(4 entries hidden: ignored by .gitignore, or .git/node_modules)");
  });

  it("expands a subfolder to the depth asked", async () => {
    const result = await call("file_tree", { path: "src/components", depth: 5 });
    expect(result.text).toBe(
      ["src/components/", "  deep/", "    er/", "      most.ts", "  button.tsx"].join("\n"),
    );
  });
});

describe("grep tool", () => {
  const expected = [
    "src/components/button.tsx:1:export const Button = () => null; // TODO style",
    "src/util.ts:1:export function helper() { return 'TODO'; }",
  ].join("\n");

  it.skipIf(!findExecutable("rg"))("uses ripgrep when it is installed", async () => {
    const result = await call("grep", { pattern: "TODO" });
    expect(result.text).toBe(expected);
    expect(result.data).toMatchObject({ engine: "ripgrep", capped: false });
  });

  it("falls back to the JS search without ripgrep, with the same hits", async () => {
    const saved = process.env.PATH;
    process.env.PATH = tempDir("cairn-empty-path-");
    try {
      const result = await call("grep", { pattern: "TODO" });
      expect(result.text).toBe(expected);
      expect(result.data).toMatchObject({ engine: "js" });
    } finally {
      process.env.PATH = saved;
    }
  });

  it("notes when hits were capped, and answers no-match plainly", async () => {
    const capped = await call("grep", { pattern: "TODO", max_results: 1 });
    expect(capped.text).toBe(
      "src/components/button.tsx:1:export const Button = () => null; // TODO style\n" +
        "(first 1 matches shown; there are more: narrow the pattern, path or glob)",
    );
    expect((await call("grep", { pattern: "absent", path: "src" })).text).toBe(
      "No matches for /absent/ in src.",
    );
  });

  it("answers JS-only syntax and refuses an invalid regular expression", async () => {
    const lookahead = await call("grep", { pattern: "TODO(?= style)" });
    expect(lookahead.text).toBe(
      "src/components/button.tsx:1:export const Button = () => null; // TODO style",
    );
    await expect(call("grep", { pattern: "(unclosed" })).rejects.toThrow(/Invalid regular expression/);
  });
});

describe("workspace_info", () => {
  it("describes git state, languages, tooling and top-level entries", async () => {
    const result = await call("workspace_info");
    const lines = result.text.split("\n");
    expect(lines[0]).toBe(`Workspace: ${workspace}`);
    expect(lines[1]).toMatch(/^Git: branch trunk, 0 changed and \d+ untracked files$/);
    expect(lines[2]).toBe("Languages: TypeScript (4 files), Go (1 file)");
    expect(lines).toContain(
      "  package.json: name demo; package manager npm; scripts: test (vitest run), build (tsc)",
    );
    expect(lines).toContain("  tsconfig.json: TypeScript");
    expect(lines).toContain("  go.mod: module example.com/demo; go 1.22");
    expect(lines).toContain("  Makefile: targets: build, test");
    expect(lines.at(-1)).toMatch(
      /^Top level: \.github\/, many\/, src\/, \.gitignore, .*README\.md.* \(\+4 ignored\)$/,
    );
    expect(result.data).toMatchObject({ root: workspace, git: { branch: "trunk" } });
  });
});
