import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { scratchRoot } from "../../src/batch/scratch.js";

describe("the folder of a worker's copies", () => {
  it("is made after removing those of workers that died, leaving kept ones and live ones", async () => {
    const dead = spawnSync(process.execPath, ["-e", "0"]).pid;
    const stale = path.join(os.tmpdir(), `cairn-worker-${dead}-test`);
    const live = path.join(os.tmpdir(), `cairn-worker-${process.ppid}-test`);
    const kept = path.join(os.tmpdir(), "cairn-worker-kept-test");
    await Promise.all([stale, live, kept].map((dir) => mkdir(path.join(dir, "copy"), { recursive: true })));
    const root = await scratchRoot("worker");
    try {
      expect(existsSync(stale)).toBe(false);
      expect(existsSync(live)).toBe(true);
      expect(existsSync(kept)).toBe(true);
      expect(path.basename(root)).toMatch(new RegExp(`^cairn-worker-${process.pid}-`));
    } finally {
      await Promise.all([root, live, kept].map((dir) => rm(dir, { recursive: true, force: true })));
    }
  });
});
