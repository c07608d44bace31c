import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { withCheckpoints } from "../../src/agent/checkpointing.js";
import { doTask } from "../../src/agent/doTask.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { unknownTouches } from "../../src/tools/touches.js";
import { defineTool } from "../../src/tools/types.js";
import { makeRepo } from "../helpers/cli.js";
import { scriptedSession } from "../helpers/session.js";
import { type ScriptedServer, startScriptedServer } from "../support/scriptedServer.js";

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/**
 * A write tool as one from elsewhere (an MCP server) may be: its path argument is called `file`,
 * and it cannot say what it writes.
 */
const saveText = defineTool({
  name: "save_text",
  description: "Save text to a file.",
  schema: z.object({ file: z.string(), text: z.string() }),
  permission: "write",
  kind: "edit",
  async execute({ file, text }, ctx) {
    const target = path.join(ctx.workspace, file);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, text);
    return { text: `Saved ${file}.` };
  },
  describe: ({ file }) => file,
  touches: unknownTouches,
});

/** Bytes a conversion on the way would change: CRLF line ends and no final newline. */
const ORIGINAL = "first line\r\nsecond line\r\nno newline at the end";

describe.each([false, true])("a write tool that does not say what it writes (git repo: %s)", (gitRepo) => {
  it("is checkpointed around its call, and undo puts every file back byte for byte", async () => {
    const repo = await makeRepo({ "notes.txt": ORIGINAL });
    if (gitRepo) {
      // A line-ending rule git would apply on add: the snapshot must keep the bytes as they are.
      await writeFile(path.join(repo, ".gitattributes"), "* text=auto eol=lf\n");
      for (const args of [
        ["init", "-q"],
        ["add", "."],
        ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init"],
      ]) {
        execFileSync("git", args, { cwd: repo, stdio: "ignore" });
      }
    }
    server = await startScriptedServer([
      {
        toolCalls: [
          { name: "save_text", args: { file: "notes.txt", text: "rewritten\n" } },
          { name: "save_text", args: { file: "new/deep/made.txt", text: "made\n" } },
        ],
      },
      { text: "Saved both." },
    ]);
    const session = await scriptedSession(server, repo, { approval: "auto" });
    // Its only tool, wrapped as the session wraps each of its own (as an MCP server's would be),
    // the session's and its own agent's.
    const registry = new ToolRegistry([withCheckpoints(saveText, () => session.checkpoints(), session.id)]);
    Object.assign(session, { registry });
    Object.assign(session.main, { registry });

    const outcome = await doTask(session, "save the notes");
    // What it changed, found by comparing the workspace, is the do's change: made and unchecked.
    expect(outcome.result).toMatchObject({
      status: "unverified",
      files_changed: ["new/deep/made.txt", "notes.txt"],
    });
    expect(outcome.exitCode).toBe(3);
    expect(await readFile(path.join(repo, "notes.txt"), "utf8")).toBe("rewritten\n");

    const store = await session.checkpoints();
    const [checkpoint, ...others] = await store.list(session.id);
    expect(others).toEqual([]);
    expect(checkpoint?.files).toEqual([
      { path: "notes.txt", existed: true },
      { path: "new/deep/made.txt", existed: false },
    ]);

    const undone = await store.undo(checkpoint?.id);
    expect(undone.files).toEqual([
      { path: "new/deep/made.txt", action: "deleted" },
      { path: "notes.txt", action: "restored" },
    ]);
    expect(await readFile(path.join(repo, "notes.txt"), "utf8")).toBe(ORIGINAL);
    expect(existsSync(path.join(repo, "new"))).toBe(false);
  });
});
