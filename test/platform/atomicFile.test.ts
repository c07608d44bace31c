// Files written whole (an edit's file, a checkpoint's objects and refs): the folder is made only
// when it is missing, instead of before every write, so these check that both paths still land.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { copyFileAtomic, writeFileAtomic } from "../../src/platform/atomicFile.js";
import { tempDir } from "../helpers/temp.js";

describe("atomic file writes", () => {
  it("write into a folder that is there, and into folders that are not yet, with nothing left beside", async () => {
    const dir = tempDir("cairn-atomic-");
    await writeFileAtomic(path.join(dir, "a.txt"), Buffer.from("one\n"));
    await writeFileAtomic(path.join(dir, "new", "deeper", "b.txt"), Buffer.from("two\n"), 0o600);
    expect(readFileSync(path.join(dir, "a.txt"), "utf8")).toBe("one\n");
    expect(readFileSync(path.join(dir, "new", "deeper", "b.txt"), "utf8")).toBe("two\n");
    expect(statSync(path.join(dir, "new", "deeper", "b.txt")).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir).sort()).toEqual(["a.txt", "new"]);
    expect(readdirSync(path.join(dir, "new", "deeper"))).toEqual(["b.txt"]);
  });

  it("fail on a missing source as they did, leaving no temporary file", async () => {
    const dir = tempDir("cairn-atomic-");
    await expect(copyFileAtomic(path.join(dir, "absent"), path.join(dir, "copy"))).rejects.toMatchObject({
      code: "ENOENT",
    });
    expect(readdirSync(dir)).toEqual([]);
  });
});
