import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CAIRN_BIN, olderNode } from "../helpers/cli.js";

const oldNode = olderNode();

describe.skipIf(!oldNode)("started on a Node older than 22", () => {
  it("starts again on the Node 22 that npm install brought", () => {
    const run = spawnSync(oldNode as string, [CAIRN_BIN, "--version"], { encoding: "utf8" });
    expect(run.stderr).toBe("");
    expect(run.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    expect(run.status).toBe(0);
  });

  it("says what to install when there is no Node 22 beside it, and exits 2", () => {
    const copy = mkdtempSync(path.join(os.tmpdir(), "cairn-old-node-"));
    cpSync(path.dirname(CAIRN_BIN), path.join(copy, "bin"), { recursive: true });
    const run = spawnSync(oldNode as string, [path.join(copy, "bin", "cairn.js"), "--version"], {
      encoding: "utf8",
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("cairn needs Node 22.12 or newer");
    expect(run.stderr).toContain("npm install");
    expect(run.stderr).not.toContain("node:sqlite");
  });
});
