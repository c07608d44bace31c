import { tmpdir } from "node:os";
import { describe, expect, it } from "vitest";
import { findExecutable, spawnGroup } from "../../src/platform/processes.js";
import { ownSleepLength } from "../helpers/cli.js";
import { missingPath } from "../helpers/temp.js";
import { gone } from "../helpers/wait.js";

describe("spawnGroup", () => {
  it("kills with SIGKILL after the grace period a group that ignores SIGTERM", async () => {
    const marker = ownSleepLength(912);
    const handle = spawnGroup("bash", ["-c", `trap '' TERM; sleep ${marker} & wait`], {
      cwd: tmpdir(),
      timeoutMs: 200,
      graceMs: 300,
    });
    const result = await handle.done;
    expect(result.timedOut).toBe(true);
    expect(result.signal).toBe("SIGKILL");
    await gone(marker);
  });

  it("stops the group when the signal aborts", async () => {
    const marker = ownSleepLength(913);
    const controller = new AbortController();
    const handle = spawnGroup("bash", ["-c", `sleep ${marker}`], {
      cwd: tmpdir(),
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 200);
    const result = await handle.done;
    expect(result.aborted).toBe(true);
    expect(result.timedOut).toBe(false);
    await gone(marker);
  });

  it("rejects when the program cannot be started", async () => {
    await expect(spawnGroup(missingPath("program"), [], { cwd: tmpdir() }).done).rejects.toThrow(/ENOENT/);
  });
});

describe("findExecutable", () => {
  it("finds programs on PATH and not others", () => {
    expect(findExecutable("bash")).toMatch(/\/bash$/);
    expect(findExecutable("no-such-program-cairn")).toBeUndefined();
  });
});
