import { writeFileSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { fileTools } from "../../src/tools/files.js";
import { ReadTracker } from "../../src/tools/fileText.js";
import { ToolError } from "../../src/tools/toolError.js";
import { EXIT_UNCHECKED, makeRepo } from "../helpers/cli.js";
import { toolContext } from "../helpers/tools.js";
import type { ScriptedTurn } from "../support/scriptedServer.js";
import { closeServers, runFaulty, toolResults } from "./harness.js";

afterEach(closeServers);

const ORIGINAL = "const limit = 10;\nconst name = 'cairn';\n";
const EXTERNAL = "const limit = 10;\nconst name = 'cairn';\nconst added = 'by a person';\n";

describe("a file edited outside cairn between read and edit", () => {
  it("is not overwritten: the edit fails as changed since read, the model reads again and edits what is there", async () => {
    const repo = await makeRepo({ "config.js": ORIGINAL });
    const file = path.join(repo, "config.js");
    const edit = {
      name: "edit_file",
      args: { path: "config.js", old_string: "limit = 10", new_string: "limit = 20" },
    };
    const overwrite = { name: "write_file", args: { path: "config.js", content: "const limit = 20;\n" } };
    const turns: ScriptedTurn[] = [
      { toolCalls: [{ name: "read_file", args: { path: "config.js" } }] },
      { toolCalls: [edit, overwrite] },
      { toolCalls: [{ name: "read_file", args: { path: "config.js" } }] },
      { toolCalls: [edit] },
      { text: "Raised the limit to 20." },
    ];
    const run = await runFaulty(repo, "raise the limit to 20", (_request, index) => {
      // Someone saves the file while the model is thinking about its edit.
      if (index === 1) writeFileSync(file, EXTERNAL);
      return turns[index]!;
    });
    expect(run.code, run.stderr).toBe(EXIT_UNCHECKED);
    const results = toolResults(run.events);
    expect(results.map((result) => result.ok)).toEqual([true, false, false, true, true]);
    for (const refused of results.slice(1, 3)) {
      expect(refused.output).toMatch(
        /^Refused: config\.js changed since read: .* Read it again with read_file/,
      );
    }
    expect(await readFile(file, "utf8")).toBe(EXTERNAL.replace("limit = 10", "limit = 20"));
  });
});

describe("the read tracker in the file tools", () => {
  async function setup() {
    const root = await makeRepo({ "a.txt": "one\ntwo\n" });
    const ctx = toolContext(root, { reads: new ReadTracker() });
    const call = (name: string, args: object) => {
      const tool = fileTools.find((candidate) => candidate.name === name)!;
      return tool.execute(tool.schema.parse(args), ctx);
    };
    return { root, call };
  }

  it("lets cairn's own edits follow each other without reading again", async () => {
    const { root, call } = await setup();
    await call("read_file", { path: "a.txt" });
    await call("edit_file", { path: "a.txt", old_string: "one", new_string: "1" });
    await call("append_file", { path: "a.txt", content: "three\n" });
    await call("edit_file", { path: "a.txt", old_string: "two", new_string: "2" });
    await call("write_file", { path: "a.txt", content: "done\n" });
    expect(await readFile(path.join(root, "a.txt"), "utf8")).toBe("done\n");
  });

  it("does not let an append make a stale picture look current", async () => {
    const { root, call } = await setup();
    await call("read_file", { path: "a.txt" });
    await writeFile(path.join(root, "a.txt"), "one\nTWO\n");
    await call("append_file", { path: "a.txt", content: "three\n" });
    await expect(call("edit_file", { path: "a.txt", old_string: "one", new_string: "1" })).rejects.toThrow(
      ToolError,
    );
    await call("read_file", { path: "a.txt" });
    await call("edit_file", { path: "a.txt", old_string: "one", new_string: "1" });
    expect(await readFile(path.join(root, "a.txt"), "utf8")).toBe("1\nTWO\nthree\n");
  });

  it("leaves files it never read to the edit's own matching", async () => {
    const { root, call } = await setup();
    await writeFile(path.join(root, "a.txt"), "uno\ntwo\n");
    await call("edit_file", { path: "a.txt", old_string: "two", new_string: "dos" });
    expect(await readFile(path.join(root, "a.txt"), "utf8")).toBe("uno\ndos\n");
  });
});
