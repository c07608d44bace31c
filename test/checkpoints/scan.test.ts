import { chmod, mkdir, readFile, symlink, unlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { Checkpoints } from "../../src/store/checkpoints.js";
import { binary, type Kind, open, repoState, tool, tree, workspace } from "./fixtures.js";

const S1 = "20260301-090000-aaaaaa";

/** What the dispatcher does around a tool that cannot say what it changes: scan, run, record. */
async function unannounced(
  checkpoints: Checkpoints,
  step: string,
  change: () => Promise<unknown>,
): Promise<void> {
  const before = await checkpoints.scanWorkspace();
  if (!before) throw new Error("the workspace was not scanned");
  await change();
  await checkpoints.recordChanges(S1, step, before);
}

describe.each<Kind>(["git repository", "plain folder"])("a change no tool announced, in a %s", (kind) => {
  it("is found by comparing the workspace, and undone byte for byte", async () => {
    const fixture = await workspace(kind);
    const at = (file: string) => path.join(fixture.workspace, file);
    const original = await tree(fixture.workspace);
    const repo = kind === "git repository" ? await repoState(fixture.workspace) : undefined;
    const checkpoints = await open(fixture);

    await unannounced(checkpoints, "1", async () => {
      await writeFile(at("README.md"), "# rewritten\n");
      await writeFile(at("image.bin"), binary(9000));
      await chmod(at("run.sh"), 0o644);
      await mkdir(at("fresh/nested"), { recursive: true });
      await writeFile(at("fresh/nested/file.bin"), binary(100));
      await unlink(at("src/deep/old.txt"));
      await unlink(at("readme-link"));
      await symlink("run.sh", at("readme-link"));
    });
    const [checkpoint] = await checkpoints.list();
    expect(checkpoint?.files.map((file) => file.path).sort()).toEqual([
      "README.md",
      "fresh/nested/file.bin",
      "image.bin",
      "readme-link",
      "run.sh",
      "src/deep/old.txt",
    ]);

    await checkpoints.undo();
    expect(await tree(fixture.workspace)).toEqual(original);
    if (repo) expect(await repoState(fixture.workspace)).toEqual(repo);
  });
});

describe("comparing the workspace", () => {
  it("leaves alone what git ignores, node_modules, and a file it never saw, even once un-ignored", async () => {
    const fixture = await workspace("plain folder");
    const at = (file: string) => path.join(fixture.workspace, file);
    await writeFile(at(".gitignore"), "*.log\nbuild/\n");
    await writeFile(at("old.log"), "kept\n");
    await mkdir(at("build"));
    await writeFile(at("build/out.js"), "built\n");
    await mkdir(at("node_modules/dep"), { recursive: true });
    await writeFile(at("node_modules/dep/index.js"), "dep\n");
    const checkpoints = await open(fixture);

    await unannounced(checkpoints, "1", async () => {
      await writeFile(at(".gitignore"), "");
      await writeFile(at("old.log"), "changed\n");
      await writeFile(at("build/out.js"), "rebuilt\n");
      await writeFile(at("node_modules/dep/index.js"), "updated\n");
      await writeFile(at("made.txt"), "new\n");
    });
    const [checkpoint] = await checkpoints.list();
    expect(checkpoint?.files).toEqual([
      { path: ".gitignore", existed: true },
      { path: "made.txt", existed: false },
    ]);

    await checkpoints.undo();
    expect(await readFile(at(".gitignore"), "utf8")).toBe("*.log\nbuild/\n");
    expect(await readFile(at("old.log"), "utf8")).toBe("changed\n");
    expect(await readFile(at("build/out.js"), "utf8")).toBe("rebuilt\n");
    expect(await readFile(at("node_modules/dep/index.js"), "utf8")).toBe("updated\n");
  });

  it("makes no checkpoint when nothing changed, and joins the step's checkpoint when something did", async () => {
    const fixture = await workspace("git repository");
    const at = (file: string) => path.join(fixture.workspace, file);
    const original = await tree(fixture.workspace);
    const checkpoints = await open(fixture);

    await unannounced(checkpoints, "1", async () => {});
    expect(await checkpoints.list()).toEqual([]);

    await tool(checkpoints, S1, "1", ["README.md"], () => writeFile(at("README.md"), "by a tool\n"));
    await unannounced(checkpoints, "1", async () => {
      await writeFile(at("README.md"), "then by a command\n");
      await writeFile(at("src/main.ts"), "export const x = 3;\n");
    });
    const [only, ...rest] = await checkpoints.list();
    expect(rest).toEqual([]);
    expect(only?.files.map((file) => file.path)).toEqual(["README.md", "src/main.ts"]);
    await checkpoints.undo();
    expect(await tree(fixture.workspace)).toEqual(original);
  });
});
