import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { EXIT_UNCHECKED, makeHome, makeRepo, modelFlags, runCairn } from "../helpers/cli.js";
import {
  type ScriptedServer,
  type ScriptedToolCall,
  startScriptedServer,
} from "../support/scriptedServer.js";

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** `cairn do` in `repo`, its model calling `toolCalls` and then answering; the files are then changed. */
async function cairnDo(repo: string, home: string, toolCalls: ScriptedToolCall[]): Promise<void> {
  server = await startScriptedServer([{ toolCalls }, { text: "Done." }]);
  const { args, env } = modelFlags("openai", server);
  const run = await runCairn(["do", "shuffle the files", ...args, "--cwd", repo, "--approval", "auto"], {
    home,
    env,
  });
  expect(run.code, run.stderr).toBe(EXIT_UNCHECKED);
  expect(await readFile(path.join(repo, "keep.txt"), "utf8")).toBe("changed\n");
}

describe.each([false, true])("cairn undo after cairn do (git repo: %s)", (gitRepo) => {
  it("restores edited, created and deleted files, and refuses when a file changed outside cairn", async () => {
    const home = await makeHome();
    const repo = await makeRepo({ "keep.txt": "original\n", "gone.txt": "delete me\n" });
    if (gitRepo) {
      for (const args of [
        ["init", "-q"],
        ["add", "."],
        ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init"],
      ]) {
        execFileSync("git", args, { cwd: repo });
      }
    }
    await cairnDo(repo, home, [
      { name: "edit_file", args: { path: "keep.txt", old_string: "original", new_string: "changed" } },
      { name: "write_file", args: { path: "new/made.txt", content: "new\n" } },
      { name: "delete_file", args: { path: "gone.txt" } },
    ]);

    const listed = await runCairn(["checkpoints", "--cwd", repo, "--json"], { home });
    expect(listed.code, listed.stderr).toBe(0);
    const [checkpoint] = JSON.parse(listed.stdout);
    expect(checkpoint.files.map((f: { path: string }) => f.path).sort()).toEqual([
      "gone.txt",
      "keep.txt",
      "new/made.txt",
    ]);

    // A change made outside cairn after its edit: undo must not silently throw it away.
    await writeFile(path.join(repo, "keep.txt"), "changed by hand\n");
    const refused = await runCairn(["undo", "--cwd", repo], { home });
    expect(refused.code).toBe(1);
    expect(refused.stdout + refused.stderr).toMatch(/keep\.txt/);
    expect(refused.stdout + refused.stderr).toMatch(/--force/);
    expect(await readFile(path.join(repo, "keep.txt"), "utf8")).toBe("changed by hand\n");

    const forced = await runCairn(["undo", "--cwd", repo, "--force"], { home });
    expect(forced.code, forced.stderr).toBe(0);
    expect(await readFile(path.join(repo, "keep.txt"), "utf8")).toBe("original\n");
    expect(await readFile(path.join(repo, "gone.txt"), "utf8")).toBe("delete me\n");
    expect(existsSync(path.join(repo, "new/made.txt"))).toBe(false);
    if (gitRepo)
      expect(execFileSync("git", ["status", "--porcelain"], { cwd: repo, encoding: "utf8" })).toBe("");
  });
});

describe("cairn undo after a command cairn ran", () => {
  it("puts back what the command changed, created and deleted, though it named no files", async () => {
    const home = await makeHome();
    const repo = await makeRepo({ "keep.txt": "original\n", "gone.txt": "delete me\n" });
    await cairnDo(repo, home, [
      {
        name: "run_command",
        args: {
          command: "printf 'changed\\n' > keep.txt && rm gone.txt && mkdir -p out && echo x > out/new.txt",
        },
      },
    ]);

    const undone = await runCairn(["undo", "--cwd", repo], { home });
    expect(undone.code, undone.stderr).toBe(0);
    expect(await readFile(path.join(repo, "keep.txt"), "utf8")).toBe("original\n");
    expect(await readFile(path.join(repo, "gone.txt"), "utf8")).toBe("delete me\n");
    expect(existsSync(path.join(repo, "out"))).toBe(false);
  });
});
