// What `npm pack` makes of cairn, as a person installs it: the one tree the CLI runs from
// (dist/cli) and the files it documents; installed without devDependencies, none of the packages
// the bundle already holds is installed a second time, and the CLI runs from what was installed.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { CAIRN_BIN, makeHome, makeRepo, modelFlags, runCairn } from "../helpers/cli.js";
import { tempDir } from "../helpers/temp.js";
import { fileTimeouts } from "../helpers/timeScale.js";
import { startScriptedServer } from "../support/scriptedServer.js";

fileTimeouts(240_000);

const ROOT = path.dirname(path.dirname(CAIRN_BIN));

/** Packages cairn imports that the bundle holds: installing cairn must not bring them again. */
const BUNDLED = ["ai", "zod", "commander", "ink", "react", "@modelcontextprotocol/sdk", "hono", "yaml"];

function npm(args: string[], cwd: string): string {
  return execFileSync("npm", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

describe("the package", () => {
  let tarball = "";
  beforeAll(() => {
    const packs = tempDir("cairn-pack-");
    const name = npm(["pack", "--ignore-scripts", "--pack-destination", packs], ROOT)
      .trim()
      .split("\n")
      .at(-1);
    tarball = path.join(packs, name ?? "");
  });

  it("holds the CLI's one tree, dist/cli, and not tsc's output or the tests' tooling", () => {
    const built = execFileSync("tar", ["-tzf", tarball], { encoding: "utf8" })
      .split("\n")
      .map((file) => file.replace(/^package\//, ""))
      .filter((file) => file.startsWith("dist/"));
    expect(built).toContain("dist/cli/main.js");
    expect(built).toContain("dist/cli/eval/exerciseTests.js");
    expect(built).toContain("dist/cli/tools/descriptions/read_file.md");
    expect(built).toContain("dist/cli/web-ui/index.html");
    expect(built.filter((file) => !file.startsWith("dist/cli/"))).toEqual([]);
  });

  it("installs only what the bundle leaves to node_modules, and runs from it", async () => {
    const prefix = tempDir("cairn-installed-");
    npm(
      [
        "install",
        "--omit=dev",
        "--ignore-scripts",
        "--prefer-offline",
        "--no-audit",
        "--no-fund",
        "--prefix",
        prefix,
        tarball,
      ],
      prefix,
    );
    const modules = path.join(prefix, "node_modules");
    expect(readdirSync(modules)).toContain("bullmq");
    for (const name of BUNDLED) expect(existsSync(path.join(modules, name)), name).toBe(false);

    const bin = path.join(modules, "cairn", "bin", "cairn.js");
    const home = await makeHome();
    expect((await runCairn(["--version"], { home, bin })).stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    const server = await startScriptedServer([{ text: "It says hello." }]);
    try {
      const repo = await makeRepo({ "a.txt": "hello\n" });
      const { args, env } = modelFlags("openai", server);
      const task = await runCairn(
        ["do", "what does a.txt say?", ...args, "--cwd", repo, "--output-format", "json"],
        { home, env, bin },
      );
      expect(task.code, task.stderr).toBe(0);
      expect(JSON.parse(task.stdout)).toMatchObject({ status: "completed", summary: "It says hello." });
    } finally {
      await server.close();
    }
  });
});
