import { execFileSync } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { RunRow } from "../../../src/eval/runsTable.js";
import { makeHome, makeRepo, modelFlags, runCairn } from "../../helpers/cli.js";
import { declines, writes } from "../../helpers/tasks.js";
import { type ScriptedServer, startScriptedServer } from "../../support/scriptedServer.js";

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], {
    cwd,
    encoding: "utf8",
  }).trim();

const FIXED = "def add(a, b):\n    return a + b\n";

/** One SWE-style instance: add() subtracts; a withheld test says so. */
async function oneInstance(home: string): Promise<string> {
  const repo = await makeRepo({ "calc.py": "def add(a, b):\n    return a - b\n" });
  git(repo, "init", "-q");
  git(repo, "add", ".");
  git(repo, "commit", "-qm", "base");
  const file = path.join(home, "instances.jsonl");
  const testPatch = [
    "diff --git a/test_add.py b/test_add.py",
    "new file mode 100644",
    "--- /dev/null",
    "+++ b/test_add.py",
    "@@ -0,0 +1,3 @@",
    "+from calc import add",
    "+def test_add():",
    "+    assert add(2, 3) == 5",
    "",
  ].join("\n");
  const instance = {
    instance_id: "calc-add",
    repo,
    base_commit: git(repo, "rev-parse", "HEAD"),
    problem_statement: "add() subtracts: make it add.",
    FAIL_TO_PASS: ["test_add.py::test_add"],
    test_command: "python3 -m pytest -q -p no:cacheprovider",
    test_runner: "pytest",
    test_patch: testPatch,
  };
  await writeFile(file, `${JSON.stringify(instance)}\n`);
  return file;
}

describe("cairn eval with several models or agents", () => {
  it("--agents runs the suite with each agent and prints one table; --models with each model, as JSON", async () => {
    const home = await makeHome();
    const agents = path.join(home, "config", "cairn", "agents");
    await mkdir(agents, { recursive: true });
    await writeFile(
      path.join(agents, "careful.md"),
      "---\ndescription: Careful\n---\nYou are careful: fix it.\n",
    );
    await writeFile(
      path.join(agents, "hasty.md"),
      "---\ndescription: Hasty\n---\nYou are hasty: do nothing.\n",
    );
    const suite = await oneInstance(home);
    // The careful agent fixes it; the hasty one, and anything else, does nothing.
    server = await startScriptedServer((request) => {
      const turn = (request.rawBody.match(/"role":"tool"/g) ?? []).length;
      return request.rawBody.includes("You are careful") ? writes("calc.py", FIXED)(turn) : declines(turn);
    });
    const { args, env } = modelFlags("openai", server);
    const eval_ = (extra: string[]) =>
      runCairn(["eval", suite, "--mode", "do", "--out", path.join(home, "runs"), ...args, ...extra], {
        home,
        env,
        timeoutMs: 240_000,
      });

    const byAgent = await eval_(["--agents", "careful,hasty"]);
    expect(byAgent.code, byAgent.stderr).toBe(0);
    const rows = byAgent.stdout.split("\n").filter((line) => /^(careful|hasty)\b/.test(line));
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatch(/^careful\s+100% \(1\/1\)/);
    expect(rows[1]).toMatch(/^hasty\s+0% \(0\/1\)/);
    expect(byAgent.stdout).toMatch(/run\s+pass@1\s+cost\s+\$ per solved/);

    const byModel = await eval_(["--models", "openai/gpt-4o,openai/gpt-4o-mini", "--output-format", "json"]);
    expect(byModel.code, byModel.stderr).toBe(0);
    const { runs } = JSON.parse(byModel.stdout) as { runs: RunRow[] };
    expect(runs.map((run) => [run.run, run.report.model, run.report.totals.solved])).toEqual([
      ["openai/gpt-4o", "openai/gpt-4o", 0],
      ["openai/gpt-4o-mini", "openai/gpt-4o-mini", 0],
    ]);
    expect(runs.map((run) => path.basename(run.out))).toEqual(["openai-gpt-4o", "openai-gpt-4o-mini"]);
  }, 300_000);
});
