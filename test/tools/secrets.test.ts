import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findExecutable } from "../../src/platform/processes.js";
import { SecretFiles } from "../../src/safety/secretFiles.js";
import { commandTools } from "../../src/tools/command.js";
import { exploreTools } from "../../src/tools/explore.js";
import { gitTools } from "../../src/tools/git.js";
import { type GrepOptions, type GrepResult, grepWithJs, grepWithRipgrep } from "../../src/tools/grep.js";
import type { AnyTool, ToolContext } from "../../src/tools/types.js";
import { tempDir } from "../helpers/temp.js";

const PLANTED = "hunter2hunter2";
let workspace: string;
let ctx: ToolContext;

function write(file: string, content: string): void {
  mkdirSync(path.dirname(path.join(workspace, file)), { recursive: true });
  writeFileSync(path.join(workspace, file), content);
}

function call(name: string, args: Record<string, unknown> = {}, context = ctx) {
  const tool: AnyTool = [...exploreTools, ...gitTools, ...commandTools].find((t) => t.name === name)!;
  return tool.execute(tool.schema.parse(args), context);
}

function git(...args: string[]): void {
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", ...args], {
    cwd: workspace,
  });
}

beforeAll(() => {
  workspace = tempDir("cairn-secret-tools-");
  write("app.js", "const KEY = process.env.API_KEY;\n");
  write("README.md", "Set API_KEY in .env (see .env.example).\n");
  write(".env", `API_KEY=${PLANTED}\n`);
  write(".env.example", "API_KEY=\n");
  write("config/secrets.yaml", `api_key: ${PLANTED}\n`);
  write("config/allowed.pem", "KEY allowed-to-read\n");
  write(".gitignore", "ignored/\n");
  write("ignored/.env", `API_KEY=${PLANTED}\n`);
  write("Config/Backup.PEM", `KEY ${PLANTED}\n`);
  git("init", "-q", "-b", "main");
  git("add", "-A");
  git("commit", "-qm", "first");
  ctx = {
    workspace,
    extraRoots: [],
    signal: new AbortController().signal,
    commandTimeoutMs: 10_000,
    step: "test",
    secrets: new SecretFiles(workspace, ["config/allowed.pem"]),
  };
});
afterAll(() => rmSync(workspace, { recursive: true, force: true }));

describe("tools that look through many files leave secret files out, and say how many", () => {
  type Grep = (options: GrepOptions) => Promise<GrepResult>;
  const engines: Array<[string, Grep]> = [["js", grepWithJs]];
  if (findExecutable("rg")) engines.push(["ripgrep", (options) => grepWithRipgrep(options)]);

  it.each(engines)(
    "grep with the %s engine searches neither .env nor secrets.yaml, whatever they hold",
    async (_name, grep) => {
      for (const pattern of ["KEY", "hunter2", "^API_KEY=h"]) {
        const result = await grep({ workspace, extraRoots: [], pattern, secrets: ctx.secrets! });
        expect(JSON.stringify(result.hits)).not.toContain(PLANTED);
        expect(result.hits.map((hit) => hit.path)).not.toContain(".env");
        // The same count whether or not they match: it tells nothing of what they hold. What
        // .gitignore leaves out is not searched anyway, and not counted; names in any case are.
        expect(result.secrets, pattern).toBe(3);
      }
      const hits = (await grep({ workspace, extraRoots: [], pattern: "API_KEY", secrets: ctx.secrets! }))
        .hits;
      expect(hits.map((hit) => hit.path).sort()).toEqual([".env.example", "README.md", "app.js"]);
      const yaml = await grep({
        workspace,
        extraRoots: [],
        pattern: "KEY",
        glob: "*.yaml",
        secrets: ctx.secrets!,
      });
      expect(yaml).toMatchObject({ hits: [], secrets: 1 });
      const ignored = await grep({
        workspace,
        extraRoots: [],
        pattern: "KEY",
        path: "ignored",
        secrets: ctx.secrets!,
      });
      expect(ignored).toMatchObject({ hits: [], secrets: 1 });
      const allowed = await grep({ workspace, extraRoots: [], pattern: "allowed-to", secrets: ctx.secrets! });
      expect(allowed.hits.map((hit) => hit.path)).toEqual(["config/allowed.pem"]);
    },
  );

  it("the grep tool tells the model what it left out", async () => {
    const result = await call("grep", { pattern: "KEY" });
    expect(result.text).not.toContain(PLANTED);
    expect(result.text).toMatch(
      /\n\(3 files that look like secrets \(\.env, keys\) were not searched; the user can allow such files with files\.allow_secrets in the config\)$/,
    );
    const none = await call("grep", { pattern: "hunter2" });
    expect(none.text).toMatch(
      /^No matches for \/hunter2\/ in the workspace\.\n\(3 files that look like secrets/,
    );
  });

  it("list_files, search_files, file_tree and workspace_info do not show them", async () => {
    const listed = await call("list_files");
    expect(listed.data).toMatchObject({
      files: [".env.example", ".gitignore", "README.md", "app.js", "config/allowed.pem"],
    });
    expect(listed.text).toMatch(/\(3 files that look like secrets \(\.env, keys\) were not listed;/);
    const searched = await call("search_files", { pattern: ".env*" });
    expect(searched.data).toMatchObject({ files: [".env.example"] });
    expect(searched.text).toMatch(/\(1 file that looks like a secret \(\.env, a key\) was not listed;/);
    const tree = await call("file_tree");
    expect(tree.text).not.toMatch(/^ *\.env$/m);
    expect(tree.text).not.toMatch(/secrets\.yaml/);
    expect(tree.text).toMatch(/\(3 files that look like secrets/);
    const info = await call("workspace_info");
    expect(info.text, info.text).not.toMatch(/[ ,]\.env[,\s]/);
    expect(info.text).toMatch(
      /Top level: Config\/, config\/, \.env\.example, \.gitignore, README\.md, app\.js \(\+2 ignored\) \(1 file that looks like a secret/,
    );
  });

  it("git_diff leaves out the changes to a secret file, even one deleted, but shows the rest", async () => {
    write(".env", `API_KEY=${PLANTED}-rotated\n`);
    write("app.js", "const KEY = process.env.API_KEY ?? '';\n");
    rmSync(path.join(workspace, "config/secrets.yaml"));
    const diff = await call("git_diff");
    expect(diff.text).toContain("diff --git a/app.js b/app.js");
    expect(diff.text).not.toContain(PLANTED);
    expect(diff.text).toMatch(/\(2 files that look like secrets \(\.env, keys\) were not shown;/);
    const only = await call("git_diff", { path: ".env" });
    expect(only.text).toMatch(/^No unstaged changes to show in \.env\.\n\(1 file that looks like a secret/);
    git("checkout", "--", ".");
  });

  it("a person's approval for one file lets that call search it", async () => {
    const approved = { ...ctx, secrets: ctx.secrets!.allowing([path.join(workspace, ".env")]) };
    const result = await call("grep", { pattern: "hunter2", path: ".env" }, approved);
    expect(result.text).toBe(`.env:1:API_KEY=${PLANTED}`);
  });
});

describe("commands get an environment without secrets", () => {
  it("run_command sees the session's environment, not cairn's own", async () => {
    const env = { PATH: process.env.PATH ?? "", HOME: workspace, VISIBLE: "yes" };
    const result = await call("run_command", { command: "env | sort" }, { ...ctx, env });
    expect(result.text).toMatch(/^VISIBLE=yes$/m);
    expect(result.text).not.toMatch(/^(?:OPENAI_API_KEY|GITHUB_TOKEN)=/m);
  });

  it("without one, run_command leaves out cairn's secrets by the default policy", async () => {
    process.env.CAIRN_TEST_SECRET_TOKEN = PLANTED;
    try {
      const result = await call("run_command", { command: "printenv CAIRN_TEST_SECRET_TOKEN; env" });
      expect(result.text).not.toContain(PLANTED);
      expect(result.text).toMatch(/^PATH=/m);
    } finally {
      delete process.env.CAIRN_TEST_SECRET_TOKEN;
    }
  });
});
