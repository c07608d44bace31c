import { mkdir } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { makeHome, runCairn } from "../helpers/cli.js";

describe("cairn demo", () => {
  it("fixes the demo repository with the recorded model, and the real tests pass", async () => {
    const home = await makeHome();
    // The demo leaves its repository for the person to look at: here, in the home that goes.
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
  });
});
