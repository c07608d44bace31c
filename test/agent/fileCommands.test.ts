import { mkdir, mkdtemp, realpath, rename, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkPostcondition, postconditionOf } from "../../src/agent/fileCheck.js";
import { parseFileCommand } from "../../src/agent/fileCommands.js";

let workspace: string;

beforeAll(async () => {
  workspace = await realpath(await mkdtemp(path.join(os.tmpdir(), "cairn-filecmd-")));
  await mkdir(path.join(workspace, "src"));
  await writeFile(path.join(workspace, "a.txt"), "hi there\n");
  await writeFile(path.join(workspace, "this.txt"), "hi, this is it\n");
  await writeFile(path.join(workspace, "b.txt"), "taken\n");
  await writeFile(path.join(workspace, "my notes.md"), "x\n");
});

afterAll(async () => {
  await rm(workspace, { recursive: true, force: true });
});

describe("plain-language file commands", () => {
  it.each([
    ["move a.txt to c.txt", "move_file", { source: "a.txt", destination: "c.txt" }],
    ["rename a.txt as c.txt.", "move_file", { source: "a.txt", destination: "c.txt" }],
    ["move a.txt into src", "move_file", { source: "a.txt", destination: "src/a.txt" }],
    ["mv src to lib", "move_file", { source: "src", destination: "lib" }],
    ["copy a.txt to src/copy.txt", "copy_file", { source: "a.txt", destination: "src/copy.txt" }],
    [
      "Copy the file `my notes.md` to notes.md",
      "copy_file",
      { source: "my notes.md", destination: "notes.md" },
    ],
    ["delete a.txt", "delete_file", { path: "a.txt" }],
    ["remove the file b.txt!", "delete_file", { path: "b.txt" }],
    ["write 'hello world' to new.txt", "write_file", { path: "new.txt", content: "hello world\n" }],
    ['write "over" to b.txt', "write_file", { path: "b.txt", content: "over\n" }],
    ["append `one more` to a.txt", "append_file", { path: "a.txt", content: "one more\n" }],
    ["replace hi with bye in a.txt", "edit_file", { path: "a.txt", old_string: "hi", new_string: "bye" }],
    [
      "replace 'hi there' with \"bye now\" in a.txt",
      "edit_file",
      { path: "a.txt", old_string: "hi there", new_string: "bye now" },
    ],
  ])("%s → %s", (task, tool, args) => {
    expect(parseFileCommand(task, workspace)).toMatchObject({ tool, args });
  });

  it.each([
    ["move missing.txt to c.txt", "the source is not there"],
    ["move a.txt to b.txt", "the destination is taken"],
    ["copy src to lib", "copy_file copies files, not folders"],
    ["delete src", "delete_file removes files only"],
    ["delete the bug in parser.js", "not a path"],
    ["write a function that sorts to utils.js", "the text is not quoted: it is a task"],
    ["replace hi with bye in this.txt", "hi occurs twice (once inside 'this')"],
    ["replace nothing with bye in a.txt", "no match"],
    ["replace hi with hi in a.txt", "no change"],
    ["move a.txt to ../outside.txt", "outside the workspace"],
    ["delete /etc/passwd", "outside the workspace"],
    ["please move a.txt to c.txt and then commit", "more than a file command"],
  ])("%s goes to the model (%s)", (task) => {
    expect(parseFileCommand(task, workspace)).toBeUndefined();
  });
});

describe("a file command's postcondition", () => {
  it("holds only once the file system shows the command done", async () => {
    const dir = await realpath(await mkdtemp(path.join(os.tmpdir(), "cairn-filecheck-")));
    try {
      await writeFile(path.join(dir, "a.txt"), "one\r\ntwo\r\n");
      const move = parseFileCommand("move a.txt to b.txt", dir)!;
      const moved = postconditionOf(move, dir);
      expect(checkPostcondition(moved)).toMatchObject({
        passed: false,
        summary: expect.stringContaining("b.txt is not there"),
      });
      await writeFile(path.join(dir, "b.txt"), "one\r\ntwo\r\n");
      expect(checkPostcondition(moved).checks[0]?.output).toBe("a.txt is still there");
      await rename(path.join(dir, "b.txt"), path.join(dir, "c.txt"));
      await rename(path.join(dir, "a.txt"), path.join(dir, "b.txt"));
      expect(checkPostcondition(moved)).toMatchObject({ passed: true });

      // A replacement in a CRLF file: the line endings stay the file's own.
      const replace = parseFileCommand("replace two with three in b.txt", dir)!;
      const replaced = postconditionOf(replace, dir);
      await writeFile(path.join(dir, "b.txt"), "one\r\nthree\r\n");
      expect(checkPostcondition(replaced)).toMatchObject({ passed: true });
      await writeFile(path.join(dir, "b.txt"), "one\r\nthree!\r\n");
      expect(checkPostcondition(replaced).checks[0]?.output).toBe("b.txt does not hold the text");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
