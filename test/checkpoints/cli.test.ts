import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { checkpointsCommand, undoCommand } from "../../src/cli/checkpoints.js";
import type { Checkpoints } from "../../src/store/checkpoints.js";
import { PRUNE_STAMP } from "../../src/store/shadowRepo.js";
import { localTime } from "../../src/ui/table.js";
import { EXIT_UNCHECKED, makeHome, makeRepo, modelFlags, runCairn } from "../helpers/cli.js";
import { captureIo } from "../store/fixtures.js";
import { startScriptedServer } from "../support/scriptedServer.js";
import { open, ticking, tool, tree, workspace } from "./fixtures.js";

const S1 = "20260301-090000-aaaaaa";
const S2 = "20260302-100000-bbbbbb";
const START = Date.parse("2026-03-02T10:00:00Z");

async function twoSessions(): Promise<{ checkpoints: Checkpoints; at: (file: string) => string }> {
  const fixture = await workspace("plain folder");
  const checkpoints = await open(fixture, ticking(START, 60_000));
  const at = (file: string) => path.join(fixture.workspace, file);
  await tool(checkpoints, S1, "1: add a greeting", ["hello.txt", "README.md"], async () => {
    await writeFile(at("hello.txt"), "hello\n");
    await writeFile(at("README.md"), "# hello\n");
  });
  await tool(checkpoints, S2, "2: tidy the readme", ["README.md"], () =>
    writeFile(at("README.md"), "# tidy\n"),
  );
  return { checkpoints, at };
}

describe("cairn checkpoints", () => {
  it("lists checkpoints newest first with the step and the files it snapshotted", async () => {
    const { checkpoints } = await twoSessions();
    const [second, first] = await checkpoints.list();
    const { io, out } = captureIo();
    expect(await checkpointsCommand(checkpoints, {}, io)).toBe(0);
    expect(out().split("\n")).toEqual([
      "id        created           session                 step                files",
      `${second?.id}  ${localTime(second?.created_at ?? "")}  ${S2}  2: tidy the readme  README.md`,
      `${first?.id}  ${localTime(first?.created_at ?? "")}  ${S1}  1: add a greeting   hello.txt (new), README.md`,
      "",
    ]);
  });

  it("shows one session's, as JSON when asked, and says when there are none", async () => {
    const { checkpoints } = await twoSessions();
    const json = captureIo();
    expect(await checkpointsCommand(checkpoints, { session: S1.slice(0, 12), json: true }, json.io)).toBe(0);
    expect(JSON.parse(json.out())).toEqual(await checkpoints.list(S1));

    const none = captureIo();
    expect(await checkpointsCommand(checkpoints, { session: "nope" }, none.io)).toBe(0);
    expect(none.out()).toBe("No checkpoints for session nope in this workspace.\n");

    const ambiguous = captureIo();
    expect(await checkpointsCommand(checkpoints, { session: "202603" }, ambiguous.io)).toBe(2);
    expect(ambiguous.err()).toBe('cairn: "202603" fits 2 sessions; give more of the id.\n');
  });
});

describe("cairn undo", () => {
  it("says what it restored and deleted", async () => {
    const { checkpoints } = await twoSessions();
    const [second, first] = await checkpoints.list();
    const latest = captureIo();
    expect(await undoCommand(checkpoints, {}, latest.io)).toBe(0);
    expect(latest.out()).toBe(
      `Undid checkpoint ${second?.id} ("2: tidy the readme", ${localTime(second?.created_at ?? "")}) of session ${S2}.\n` +
        "  restored  README.md\n",
    );
    const earlier = captureIo();
    expect(await undoCommand(checkpoints, { checkpoint: first?.id }, earlier.io)).toBe(0);
    expect(earlier.out()).toBe(
      `Undid checkpoint ${first?.id} ("1: add a greeting", ${localTime(first?.created_at ?? "")}) of session ${S1}.\n` +
        "  restored  README.md\n  deleted   hello.txt\n",
    );
  });

  it("refuses with the files that changed since, exit 1, and --force overrides", async () => {
    const { checkpoints, at } = await twoSessions();
    const [second] = await checkpoints.list();
    await writeFile(at("README.md"), "# by hand\n");
    const before = await tree(path.dirname(at("README.md")));

    const refused = captureIo();
    expect(await undoCommand(checkpoints, {}, refused.io)).toBe(1);
    expect(refused.err()).toBe(
      [
        "cairn: not undone: a file has changed since cairn left it, and undoing would throw that work away:",
        "  README.md  modified since cairn changed it",
        `Nothing was changed. Look at it first; \`cairn undo ${second?.id} --force\` restores the checkpoint anyway.`,
        "",
      ].join("\n"),
    );
    expect(await tree(path.dirname(at("README.md")))).toEqual(before);

    const forced = captureIo();
    expect(await undoCommand(checkpoints, { force: true }, forced.io)).toBe(0);
    expect(forced.out()).toContain("  restored  README.md\n");
  });

  it("tells a wrong id (exit 2) from nothing to undo (exit 1)", async () => {
    const { checkpoints } = await twoSessions();
    const wrong = captureIo();
    expect(await undoCommand(checkpoints, { checkpoint: "zzzz" }, wrong.io)).toBe(2);
    expect(wrong.err()).toBe('cairn: no checkpoint matches "zzzz"; `cairn checkpoints` lists them.\n');

    const empty = await open(await workspace("plain folder"));
    const nothing = captureIo();
    expect(await undoCommand(empty, {}, nothing.io)).toBe(1);
    expect(nothing.err()).toBe(`cairn: nothing to undo: no checkpoints in ${empty.workspace}.\n`);
  });
});

describe("the first edit of a session in a new workspace", () => {
  it("creates the checkpoint repository without running git gc on it", async () => {
    const home = await makeHome();
    const repo = await makeRepo({ "notes.txt": "one\n" });
    // A `git` on the PATH that notes each subcommand cairn runs, then runs the real one.
    const realGit = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim();
    const log = path.join(home, "git.log");
    const bin = path.join(home, "bin");
    await mkdir(bin);
    await writeFile(
      path.join(bin, "git"),
      `#!/bin/sh\nfor a in "$@"; do case "$a" in -c) ;; -*) ;; *=*) ;; *) echo "$a" >> '${log}'; break;; esac; done\nexec '${realGit}' "$@"\n`,
    );
    await chmod(path.join(bin, "git"), 0o755);
    const server = await startScriptedServer([
      { toolCalls: [{ name: "write_file", args: { path: "notes.txt", content: "two\n" } }] },
      { text: "Wrote it." },
    ]);
    try {
      const { args, env } = modelFlags("openai", server);
      const run = await runCairn(
        ["do", "write two", ...args, "--cwd", repo, "--approval", "auto", "--output-format", "stream-json"],
        { home, env: { ...env, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ""}` } },
      );
      expect(run.code, run.stderr).toBe(EXIT_UNCHECKED);
    } finally {
      await server.close();
    }
    expect(await readFile(path.join(repo, "notes.txt"), "utf8")).toBe("two\n");
    const subcommands = (await readFile(log, "utf8")).split("\n").filter(Boolean);
    // The repository was created in this run, for the edit, and no gc ran on it.
    expect(subcommands).toContain("init");
    expect(subcommands).not.toContain("gc");
    const [gitDir] = await readdir(path.join(home, "data", "cairn", "checkpoints"));
    expect(existsSync(path.join(home, "data", "cairn", "checkpoints", gitDir ?? "", PRUNE_STAMP))).toBe(true);
  });
});
