import { execFileSync } from "node:child_process";
import { chmod, mkdir, readdir, readFile, rename, stat, symlink, unlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CheckpointError, Checkpoints, UndoRefused } from "../../src/store/checkpoints.js";
import {
  binary,
  type Fixture,
  type Kind,
  open,
  repoState,
  ticking,
  tool,
  tree,
  workspace,
} from "./fixtures.js";

const S1 = "20260301-090000-aaaaaa";
const S2 = "20260302-100000-bbbbbb";

/** One step that makes every kind of change: modify text, binary and an executable, create, delete, relink. */
async function everyKindOfChange(checkpoints: Checkpoints, fixture: Fixture, session = S1): Promise<void> {
  const at = (file: string) => path.join(fixture.workspace, file);
  const step = "1: change everything";
  await tool(checkpoints, session, step, ["README.md"], () => writeFile(at("README.md"), "# rewritten\n"));
  await tool(checkpoints, session, step, ["image.bin"], () => writeFile(at("image.bin"), binary(9000)));
  await tool(checkpoints, session, step, ["run.sh"], () =>
    writeFile(at("run.sh"), "#!/bin/sh\necho changed\n"),
  );
  await tool(checkpoints, session, step, ["new.txt"], () => writeFile(at("new.txt"), "brand new\n"));
  await tool(checkpoints, session, step, ["fresh/nested/file.bin"], async () => {
    await mkdir(at("fresh/nested"), { recursive: true });
    await writeFile(at("fresh/nested/file.bin"), binary(100));
  });
  await tool(checkpoints, session, step, ["src/deep/old.txt"], () => unlink(at("src/deep/old.txt")));
  await tool(checkpoints, session, step, ["readme-link"], async () => {
    await unlink(at("readme-link"));
    await symlink("run.sh", at("readme-link"));
  });
}

describe.each<Kind>(["git repository", "plain folder"])("undo in a %s", (kind) => {
  it("restores new, modified, deleted, binary, executable and linked files byte for byte", async () => {
    const fixture = await workspace(kind);
    const original = await tree(fixture.workspace);
    const repo = kind === "git repository" ? await repoState(fixture.workspace) : undefined;
    const checkpoints = await open(fixture);

    await everyKindOfChange(checkpoints, fixture);
    expect(await tree(fixture.workspace)).not.toEqual(original);

    const result = await checkpoints.undo();
    expect(await tree(fixture.workspace)).toEqual(original);
    expect((await stat(path.join(fixture.workspace, "run.sh"))).mode & 0o777).toBe(0o755);
    expect(result.files).toEqual([
      { path: "README.md", action: "restored" },
      { path: "fresh/nested/file.bin", action: "deleted" },
      { path: "image.bin", action: "restored" },
      { path: "new.txt", action: "deleted" },
      { path: "readme-link", action: "restored" },
      { path: "run.sh", action: "restored" },
      { path: "src/deep/old.txt", action: "restored" },
    ]);
    expect(await checkpoints.list()).toEqual([]);
    if (repo) expect(await repoState(fixture.workspace)).toEqual(repo);
  });

  it("keeps its snapshots under the data folder, never in the workspace", async () => {
    const fixture = await workspace(kind);
    const before = await tree(fixture.workspace);
    const checkpoints = await open(fixture);
    await checkpoints.beforeChange(S1, "1", ["README.md", "new.txt"]);
    expect(await tree(fixture.workspace)).toEqual(before);
    expect(path.dirname(checkpoints.gitDir)).toBe(path.join(fixture.dataDir, "checkpoints"));
    expect(await readFile(path.join(checkpoints.gitDir, "cairn-workspace"), "utf8")).toBe(
      `${fixture.workspace}\n`,
    );
  });
});

describe("checkpoints", () => {
  it("keeps the state before the step when a file is changed twice in it", async () => {
    const fixture = await workspace("plain folder");
    const original = await tree(fixture.workspace);
    const checkpoints = await open(fixture);
    const readme = path.join(fixture.workspace, "README.md");
    await tool(checkpoints, S1, "1", ["README.md"], () => writeFile(readme, "first\n"));
    await tool(checkpoints, S1, "1", ["README.md", "new.txt"], async () => {
      await writeFile(readme, "second\n");
      await writeFile(path.join(fixture.workspace, "new.txt"), "x");
    });
    await tool(checkpoints, S1, "1", ["new.txt"], () =>
      writeFile(path.join(fixture.workspace, "new.txt"), "y"),
    );
    const [only, ...rest] = await checkpoints.list();
    expect(rest).toEqual([]);
    expect(only?.files).toEqual([
      { path: "README.md", existed: true },
      { path: "new.txt", existed: false },
    ]);
    await checkpoints.undo(only?.id);
    expect(await tree(fixture.workspace)).toEqual(original);
  });

  it("undoes back to an earlier step, taking the later steps of the session with it", async () => {
    const fixture = await workspace("git repository");
    const at = (file: string) => path.join(fixture.workspace, file);
    const checkpoints = await open(fixture);
    await tool(checkpoints, S1, "1", ["README.md"], () => writeFile(at("README.md"), "step one\n"));
    const afterStepOne = await tree(fixture.workspace);
    await tool(checkpoints, S1, "2", ["README.md", "src/main.ts"], async () => {
      await writeFile(at("README.md"), "step two\n");
      await writeFile(at("src/main.ts"), "export const x = 3;\n");
    });
    await tool(checkpoints, S1, "3", ["docs/guide.md"], async () => {
      await mkdir(at("docs"));
      await writeFile(at("docs/guide.md"), "guide\n");
    });
    const [three, two, one] = await checkpoints.list();
    expect([three?.step, two?.step, one?.step]).toEqual(["3", "2", "1"]);

    const result = await checkpoints.undo(two?.id.slice(0, 5));
    expect(result.undone.map((c) => c.step)).toEqual(["2", "3"]);
    expect(await tree(fixture.workspace)).toEqual(afterStepOne);
    expect((await checkpoints.list()).map((c) => c.id)).toEqual([one?.id]);
  });

  it("lists newest first, by session, and undoes the newest step of the newest session by default", async () => {
    const fixture = await workspace("plain folder");
    const checkpoints = await open(fixture, ticking(Date.parse("2026-03-01T09:00:00Z"), 60_000));
    const at = (file: string) => path.join(fixture.workspace, file);
    await tool(checkpoints, S1, "1", ["a.txt"], () => writeFile(at("a.txt"), "a"));
    await tool(checkpoints, S2, "1", ["b.txt"], () => writeFile(at("b.txt"), "b"));
    await tool(checkpoints, S2, "2", ["b.txt"], () => writeFile(at("b.txt"), "bb"));

    const all = await checkpoints.list();
    expect(all.map((c) => [c.session, c.step])).toEqual([
      [S2, "2"],
      [S2, "1"],
      [S1, "1"],
    ]);
    expect(all.every((c) => /^[0-9a-f]{8}$/.test(c.id))).toBe(true);
    expect(all[1]?.created_at).toBe("2026-03-01T09:03:00.000Z");
    expect((await checkpoints.list(S1.slice(0, 10))).map((c) => c.session)).toEqual([S1]);
    expect(await checkpoints.list("nobody")).toEqual([]);
    await expect(checkpoints.list("2026030")).rejects.toThrow(CheckpointError);

    const result = await checkpoints.undo();
    expect(result.checkpoint.id).toBe(all[0]?.id);
    expect(await readFile(at("b.txt"), "utf8")).toBe("b");
    expect(await readFile(at("a.txt"), "utf8")).toBe("a");
    await expect(checkpoints.undo("ffffffffff")).rejects.toThrow(/no checkpoint matches "ffffffffff"/);
  });

  it("refuses to undo over a change made since cairn's, touching nothing, unless forced", async () => {
    const fixture = await workspace("git repository");
    const at = (file: string) => path.join(fixture.workspace, file);
    const original = await tree(fixture.workspace);
    const checkpoints = await open(fixture);
    await everyKindOfChange(checkpoints, fixture);
    await writeFile(at("README.md"), "edited by hand afterwards\n");
    await unlink(at("new.txt"));
    await chmod(at("run.sh"), 0o644);
    const edited = await tree(fixture.workspace);

    const refused = await checkpoints.undo().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(UndoRefused);
    expect((refused as UndoRefused).conflicts).toEqual([
      { path: "README.md", reason: "modified since cairn changed it" },
      { path: "run.sh", reason: "modified since cairn changed it" },
    ]);
    expect(await tree(fixture.workspace)).toEqual(edited);
    expect(await checkpoints.list()).toHaveLength(1);

    await checkpoints.undo(undefined, { force: true });
    expect(await tree(fixture.workspace)).toEqual(original);
  });

  it("notices a file that cairn deleted coming back, and one a later session changed", async () => {
    const fixture = await workspace("plain folder");
    const at = (file: string) => path.join(fixture.workspace, file);
    const checkpoints = await open(fixture);
    await tool(checkpoints, S1, "1", ["src/deep/old.txt", "new.txt"], async () => {
      await unlink(at("src/deep/old.txt"));
      await writeFile(at("new.txt"), "mine");
    });
    await writeFile(at("src/deep/old.txt"), "back again\n");
    await tool(checkpoints, S2, "1", ["new.txt"], () => writeFile(at("new.txt"), "theirs"));
    const [first] = await checkpoints.list(S1);
    const refused = (await checkpoints.undo(first?.id).catch((error: unknown) => error)) as UndoRefused;
    expect(refused.conflicts).toEqual([
      { path: "new.txt", reason: "modified since cairn changed it" },
      { path: "src/deep/old.txt", reason: "created after cairn removed it" },
    ]);
  });

  it("puts back a folder cairn moved", async () => {
    const fixture = await workspace("plain folder");
    const original = await tree(fixture.workspace);
    const checkpoints = await open(fixture);
    await tool(checkpoints, S1, "1", ["src", "lib/code"], async () => {
      await mkdir(path.join(fixture.workspace, "lib"));
      await rename(path.join(fixture.workspace, "src"), path.join(fixture.workspace, "lib/code"));
    });
    expect((await checkpoints.list())[0]?.files.map((f) => [f.path, f.existed])).toEqual([
      ["src/deep/old.txt", true],
      ["src/main.ts", true],
      ["lib/code/deep/old.txt", false],
      ["lib/code/main.ts", false],
    ]);
    await checkpoints.undo();
    expect(await tree(fixture.workspace)).toEqual(original);
  });

  it("treats a step cut short before its change was recorded as safe only if the file is untouched", async () => {
    const fixture = await workspace("plain folder");
    const at = (file: string) => path.join(fixture.workspace, file);
    const checkpoints = await open(fixture, ticking(Date.now(), 1000));
    await checkpoints.beforeChange(S1, "1", ["README.md"]);
    await writeFile(at("README.md"), "written, then the process died\n");
    const refused = (await checkpoints.undo().catch((error: unknown) => error)) as UndoRefused;
    expect(refused.conflicts.map((c) => c.path)).toEqual(["README.md"]);

    await checkpoints.beforeChange(S2, "1", ["run.sh"]);
    const [interrupted] = await checkpoints.list(S2);
    const result = await checkpoints.undo(interrupted?.id);
    expect(result.files).toEqual([{ path: "run.sh", action: "unchanged" }]);
  });

  it("is not thrown off by the user's git configuration or environment", async () => {
    const fixture = await workspace("git repository");
    const original = await tree(fixture.workspace);
    const userConfig = path.join(path.dirname(fixture.workspace), "user.gitconfig");
    await writeFile(
      userConfig,
      `[core]\n\tautocrlf = true\n\thooksPath = ${path.join(path.dirname(fixture.workspace), "no-hooks")}\n[commit]\n\tgpgSign = true\n[init]\n\tdefaultObjectFormat = sha256\n`,
    );
    const hostile = {
      GIT_CONFIG_GLOBAL: userConfig,
      GIT_DIR: path.join(fixture.workspace, ".git"),
      GIT_INDEX_FILE: path.join(fixture.workspace, ".git", "index"),
    };
    Object.assign(process.env, hostile);
    try {
      const repo = await repoState(fixture.workspace);
      const checkpoints = await open(fixture);
      await everyKindOfChange(checkpoints, fixture);
      await checkpoints.undo();
      expect(await tree(fixture.workspace)).toEqual(original);
      expect(await repoState(fixture.workspace)).toEqual(repo);
    } finally {
      for (const name of Object.keys(hostile)) delete process.env[name];
    }
  });

  it("writes snapshots git reads as its own, before and after gc packs them", async () => {
    const fixture = await workspace("plain folder");
    const original = await tree(fixture.workspace);
    const checkpoints = await open(fixture);
    const at = (file: string) => path.join(fixture.workspace, file);
    await tool(checkpoints, S1, "1", ["README.md", "image.bin"], async () => {
      await writeFile(at("README.md"), "changed\n");
      await writeFile(at("image.bin"), binary(20_000));
    });
    const fsck = () =>
      execFileSync("git", [`--git-dir=${checkpoints.gitDir}`, "fsck", "--strict", "--no-dangling"], {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"],
      });
    expect(fsck()).toBe("");
    // gc packs the objects and the checkpoint's ref; the same step then goes on changing files.
    await checkpoints.prune();
    await tool(checkpoints, S1, "1", ["run.sh"], () => writeFile(at("run.sh"), "#!/bin/sh\n"));
    expect(fsck()).toBe("");
    expect((await checkpoints.list()).map((c) => c.files.map((f) => f.path))).toEqual([
      ["README.md", "image.bin", "run.sh"],
    ]);
    await checkpoints.undo();
    expect(await tree(fixture.workspace)).toEqual(original);
  });

  it("goes on checkpointing a session after another process undid its last step", async () => {
    const fixture = await workspace("plain folder");
    const at = (file: string) => path.join(fixture.workspace, file);
    const running = await open(fixture);
    await tool(running, S1, "1", ["README.md"], () => writeFile(at("README.md"), "one\n"));
    await tool(running, S1, "2", ["README.md"], () => writeFile(at("README.md"), "two\n"));
    await (await open(fixture)).undo();
    expect(await readFile(at("README.md"), "utf8")).toBe("one\n");

    await tool(running, S1, "2", ["src/main.ts"], () => writeFile(at("src/main.ts"), "changed\n"));
    expect((await running.list()).map((c) => [c.step, c.files.map((f) => f.path)])).toEqual([
      ["2", ["src/main.ts"]],
      ["1", ["README.md"]],
    ]);
    await running.undo();
    expect(await readFile(at("src/main.ts"), "utf8")).toBe("export const x = 1;\n");
    expect(await readFile(at("README.md"), "utf8")).toBe("one\n");
  });

  it("works on parallel calls from one session without losing a snapshot", async () => {
    const fixture = await workspace("plain folder");
    const original = await tree(fixture.workspace);
    const checkpoints = await open(fixture);
    const files = ["p1.txt", "p2.txt", "p3.txt", "README.md"];
    await Promise.all(
      files.map((file) =>
        tool(checkpoints, S1, "1", [file], () =>
          writeFile(path.join(fixture.workspace, file), `parallel ${file}`),
        ),
      ),
    );
    expect((await checkpoints.list())[0]?.files.map((f) => f.path).sort()).toEqual([...files].sort());
    await checkpoints.undo();
    expect(await tree(fixture.workspace)).toEqual(original);
  });
});

describe("pruning", () => {
  const DAY = 86_400_000;

  function objectExists(gitDir: string, blob: string): boolean {
    try {
      execFileSync("git", [`--git-dir=${gitDir}`, "cat-file", "-e", blob], { stdio: "ignore" });
      return true;
    } catch {
      return false;
    }
  }

  function blobOf(text: string): string {
    return execFileSync("git", ["hash-object", "--stdin"], { input: text, encoding: "utf8" }).trim();
  }

  it("drops checkpoints past the age limit, and their snapshots with them, once a day on open", async () => {
    const fixture = await workspace("plain folder");
    const real = Date.now();
    let now = real - 20 * DAY;
    const clock = () => new Date(now);
    const at = (file: string) => path.join(fixture.workspace, file);
    await writeFile(at("old.txt"), "only in the old snapshot\n");
    const early = await open(fixture, clock);
    await tool(early, S1, "1", ["old.txt"], () => writeFile(at("old.txt"), "changed\n"));
    now = real - 2 * DAY;
    await tool(early, S2, "1", ["README.md"], () => writeFile(at("README.md"), "recent\n"));
    now = real - 2 * 3_600_000;
    expect((await early.prune({ maxAgeDays: 30 })).removed).toEqual([]);

    now = real;
    expect(await (await open(fixture, clock)).list()).toHaveLength(2);

    now = real + DAY;
    const nextDay = await open(fixture, clock);
    expect((await nextDay.list()).map((c) => c.session)).toEqual([S2]);
    expect(objectExists(nextDay.gitDir, blobOf("only in the old snapshot\n"))).toBe(false);
    expect(objectExists(nextDay.gitDir, blobOf("# demo\r\nline two\n"))).toBe(true);
  });

  it("drops the oldest checkpoints until the snapshots fit the size limit", async () => {
    const fixture = await workspace("plain folder");
    const checkpoints = await open(fixture, ticking(Date.now(), 1000));
    for (const n of [1, 2, 3]) {
      const file = path.join(fixture.workspace, `big${n}.bin`);
      await writeFile(file, binary(40_000));
      await tool(checkpoints, S1, String(n), [`big${n}.bin`], () => writeFile(file, "small"));
    }
    const result = await checkpoints.prune({ maxBytes: 90_000 });
    expect(result.removed.map((c) => c.step)).toEqual(["1"]);
    expect((await checkpoints.list()).map((c) => c.step)).toEqual(["3", "2"]);
  });

  it("removes the shadow repositories of workspaces not opened for longer than the age limit", async () => {
    const fixture = await workspace("plain folder");
    const other = await workspace("plain folder");
    let now = Date.now() - 20 * DAY;
    const clock = () => new Date(now);
    const abandoned = await Checkpoints.open(other.workspace, { dataDir: fixture.dataDir, clock });
    await abandoned.beforeChange(S1, "1", ["README.md"]);
    now = Date.now() - 10 * DAY;
    const recent = await Checkpoints.open(fixture.workspace, { dataDir: fixture.dataDir, clock });
    now = Date.now();
    const result = await recent.prune();
    expect(result.removedWorkspaces).toBe(1);
    expect(await readdir(path.join(fixture.dataDir, "checkpoints"))).toEqual([path.basename(recent.gitDir)]);
  });
});
