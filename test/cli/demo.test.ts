import { mkdir, readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { makeHome, runCairn } from "../helpers/cli.js";

describe("cairn demo", () => {
  it("fixes the demo repository with the recorded model, and the real tests pass", async () => {
    const home = await makeHome();
    // Where the demo makes its repository: it must be gone afterwards.
    const tmp = path.join(home, "tmp");
    await mkdir(tmp);
    const run = await runCairn(["demo", "--recorded", "--output-format", "json"], {
      home,
      env: { TMPDIR: tmp },
      timeoutMs: 60_000,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/RECORDING/);
    const result = JSON.parse(run.stdout);
    expect(result.status).toBe("completed");
    expect(result.files_changed).toEqual(["src/stats.js"]);
    expect(result.validation).toMatchObject({ ran: true, passed: true });
    expect(Object.keys(result.usage.by_phase).sort()).toEqual([
      "analysis",
      "execution",
      "planning",
      "review",
      "routing",
    ]);
    expect(await readdir(tmp)).toEqual([]);
    expect(run.stderr).toContain("Removed the demo repository (cairn demo --keep leaves it to look at).");
  });

  it("keeps its repository with --keep, and says where", async () => {
    const home = await makeHome();
    const tmp = path.join(home, "tmp");
    await mkdir(tmp);
    const run = await runCairn(["demo", "--recorded", "--keep", "--output-format", "json"], {
      home,
      env: { TMPDIR: tmp },
      timeoutMs: 60_000,
    });
    expect(run.code, run.stderr).toBe(0);
    const [kept] = await readdir(tmp);
    expect(kept).toMatch(/^cairn-demo-/);
    expect(run.stderr).toContain(`The demo repository stays at ${path.join(tmp, kept ?? "")}.`);
    expect(await readFile(path.join(tmp, kept ?? "", "src", "stats.js"), "utf8")).toContain("let i = 0");
  });
});
