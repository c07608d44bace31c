import { chmod, readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { RunResult, TodoItem } from "../../src/events/types.js";
import {
  makeHome,
  makeRepo,
  modelFlags,
  ownSleep,
  processRunning,
  runCairn,
  startCairn,
  streamEvents,
} from "../helpers/cli.js";
import {
  cairnRun,
  classify,
  FIX_SUM,
  intent,
  JS_REPO,
  notReady,
  onePlan,
  ready,
  runScript,
  structuredName,
} from "../helpers/runScript.js";
import { fileTimeouts } from "../helpers/timeScale.js";
import { until } from "../helpers/wait.js";
import { type ScriptedServer, startScriptedServer } from "../support/scriptedServer.js";

fileTimeouts(120_000);

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A repository whose only check is a script its README names; `greet.txt` must start with "Hello". */
const GREETER = {
  "greet.txt": "Hi there\n",
  "README.md": "# Greeter\n\nRun `./check.sh` to check it.\n",
  "check.sh":
    '#!/bin/sh\nif head -n 1 greet.txt | grep -q "^Hello"; then echo PASS; else echo FAIL; exit 1; fi\n',
};

const edit = (file: string, from: string, to: string) => ({
  toolCalls: [{ name: "edit_file", args: { path: file, old_string: from, new_string: to } }],
});

describe("endings of cairn run", () => {
  it("runs the check script the README names, and does not call a change that fails it completed", async () => {
    const repo = await makeRepo(GREETER);
    await chmod(path.join(repo, "check.sh"), 0o755);
    const { run, events, result } = await cairnRun(
      repo,
      "greet.txt should greet more warmly",
      {
        classification: [classify()],
        intent: [intent(["greet.txt"])],
        plan: [onePlan("Warm up the greeting", ["greet.txt"]), onePlan("Start with Hello", ["greet.txt"])],
        execution: [
          edit("greet.txt", "Hi", "Hey"),
          { text: "Changed Hi to Hey." },
          edit("greet.txt", "Hey", "Hello"),
          { text: "Now it says Hello." },
        ],
        review: [notReady("It must start with Hello."), ready],
      },
      [],
      90_000,
    );
    const validations = events.filter((e) => e.type === "validation");
    // The first round's "Hey" failed the script: a second round was needed.
    expect(validations[0]).toMatchObject({ ran: true, passed: false });
    expect(String(validations[0]?.summary)).toContain("FAIL");
    expect(validations[0]?.checks).toEqual([
      expect.objectContaining({ command: "./check.sh", source: "docs" }),
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(result).toMatchObject({ status: "completed", reason: "checks_passed", iterations: 2 });
    expect(result?.validation).toMatchObject({ ran: true, passed: true, command: "./check.sh" });
    expect(await readFile(path.join(repo, "greet.txt"), "utf8")).toMatch(/^Hello/);
    expect(result?.assessment).toMatchObject({
      confidence: "high",
      verified_by: [{ command: "./check.sh", source: "docs", passed: true }],
    });
  });

  it("validates what the fast path changes, and takes a failing change through the full loop", async () => {
    // A bug no small mutation fixes, so the fast path's failing change is the full loop's to fix.
    const repo = await makeRepo({
      ...JS_REPO,
      "src/sum.js": "export function sum(values) {\n  return values.length;\n}\n",
    });
    const { run, events, result, requests } = await cairnRun(
      repo,
      "the sum test fails, fix it",
      {
        classification: [{ ...classify("trivial"), confidence: 0.95 }],
        intent: [intent(["src/sum.js"])],
        plan: [onePlan("Fix the reducer", ["src/sum.js"])],
        execution: [
          edit("src/sum.js", "export function", "// Sums values.\nexport function"),
          { text: "Documented it." },
          edit("src/sum.js", "values.length", "values.reduce((a, b) => a + b, 0)"),
          { text: "Changed the reducer to add." },
        ],
        review: [ready],
      },
      [],
      90_000,
    );
    expect(events.find((e) => e.type === "route")).toMatchObject({ tier: 1 });
    const validations = events.filter((e) => e.type === "validation");
    expect(validations.map((v) => v.passed)).toEqual([false, true]);
    expect(run.code, run.stderr).toBe(0);
    expect(result).toMatchObject({ status: "completed", reason: "checks_passed", iterations: 2 });
    expect(await readFile(path.join(repo, "src/sum.js"), "utf8")).toContain("a + b");
    // The project's own test judged the fast path's change: no reviewer was asked about it.
    expect(requests.filter((r) => structuredName(r) === "review")).toHaveLength(1);
  });

  it("passes a fast-path change the project's tests pass without a review", async () => {
    const repo = await makeRepo(JS_REPO);
    const { run, result, requests } = await cairnRun(
      repo,
      "the sum test fails, fix it",
      {
        classification: [{ ...classify("trivial"), confidence: 0.95 }],
        execution: [{ toolCalls: [FIX_SUM] }, { text: "Fixed." }],
      },
      [],
      90_000,
    );
    expect(run.code, run.stderr).toBe(0);
    expect(result).toMatchObject({ status: "completed", reason: "checks_passed", iterations: 1 });
    expect(result?.validation).toMatchObject({ ran: true, passed: true });
    expect(requests).toHaveLength(3);
    // Not reviewed for that reason, not for want of a change.
    expect(result?.summary).toContain(
      "## Review\nNo review: the project's checks judged a change made without a plan.",
    );
    expect(result?.summary).not.toContain("nothing was changed");
  });

  it("words a failed run as it went: a move as a move, the failed check as why nothing verified it, what failed", {
    timeout: 90_000,
  }, async () => {
    const repo = await makeRepo({ ...JS_REPO, "src/helper.js": "export const one = 1;\n" });
    const { run, result } = await cairnRun(
      repo,
      "the sum test fails, fix it",
      {
        classification: [{ ...classify("trivial"), confidence: 0.95 }],
        execution: [
          {
            toolCalls: [{ name: "move_file", args: { source: "src/helper.js", destination: "src/util.js" } }],
          },
          { text: "Tidied up first." },
        ],
      },
      ["--max-iterations", "1"],
      90_000,
    );
    expect(run.code).toBe(1);
    expect(result).toMatchObject({
      status: "max_iterations",
      files_changed: ["src/helper.js", "src/util.js"],
    });
    expect(result?.summary).toContain("## What changed\n- `src/util.js` (moved from `src/helper.js`)\n\n");
    expect(result?.summary).not.toContain("(modified)");
    expect(result?.summary).toContain("No review: the run ended before a reviewer read the change.");
    expect(result?.assessment.not_verified).toEqual(["the change to 2 files (`npm test` failed)"]);
    const [remaining] = result?.assessment.remaining ?? [];
    // What failed, not the heading that introduces it.
    expect(remaining).toMatch(/^Validation failed: \S/);
    expect(remaining).toContain("sum");
  });

  it("runs --verify even when nothing changed, and a failing one fails the run", async () => {
    const repo = await makeRepo({
      "main.py": 'print("hello")\n',
      "build-check.sh": "#!/bin/sh\necho 'build broken'\nexit 1\n",
    });
    const { run, events, result } = await cairnRun(
      repo,
      "what does main.py do?",
      { execution: [{ text: "It prints hello." }] },
      ["--verify", "sh build-check.sh"],
      90_000,
    );
    expect(result?.files_changed).toEqual([]);
    expect(events.find((e) => e.type === "validation")).toMatchObject({ ran: true, passed: false });
    expect(run.code).toBe(1);
    expect(result).toMatchObject({ status: "failed", reason: "checks_failed" });
    expect(result?.validation).toMatchObject({ ran: true, passed: false, command: "sh build-check.sh" });
  });

  it("ends unverified, exit 3, when nothing can check the change, and says so where it ends", async () => {
    const repo = await makeRepo({ "notes.txt": "draft\n" });
    server = await startScriptedServer(
      runScript({
        classification: [classify()],
        intent: [intent(["notes.txt"])],
        plan: [onePlan("Polish the notes", ["notes.txt"])],
        execution: [edit("notes.txt", "draft", "final"), { text: "Polished." }],
        check: [{ command: null, reason: "whether prose is polished is a matter of taste" }],
        review: [ready],
      }),
    );
    const { args, env } = modelFlags("openai", server);
    const run = await runCairn(["run", "polish the notes", ...args, "--cwd", repo, "--approval", "auto"], {
      home: await makeHome(),
      env,
      timeoutMs: 60_000,
    });
    expect(run.code, run.stderr).toBe(3);
    expect(run.stderr).toMatch(/unverified · not verified: no check was found or could run/);
    const reports = path.join(repo, ".cairn", "reports");
    const [file] = (await readdir(reports)).filter((name) => name.endsWith(".md"));
    const report = await readFile(path.join(reports, file!), "utf8");
    expect(report).toContain("**Status:** unverified");
    expect(report).toMatch(
      /## How sure\nLow confidence\. Nothing checked the change: no check found.*the model proposed none/,
    );
    expect(report).toContain("- Not verified: the change to 1 file");
    // Asked once: the proposal is kept for the session, not asked again each round. A small request.
    const proposals = server.requests.filter((r) => structuredName(r) === "check");
    expect(proposals).toHaveLength(1);
    expect(proposals[0]?.rawBody.length).toBeLessThan(3_000);
  });

  it("stops as stuck when reworded reviews keep raising the same problem, judged between rounds", async () => {
    const repo = await makeRepo(JS_REPO);
    const { run, events, result, requests } = await cairnRun(
      repo,
      "the sum test fails, fix it",
      {
        classification: [classify()],
        intent: [intent(["src/sum.js"])],
        plan: [1, 2, 3].map((n) => onePlan(`Attempt ${n}`, ["src/sum.js"])),
        execution: [
          { toolCalls: [FIX_SUM] },
          { text: "Fixed the reducer." },
          { text: "Nothing else to change." },
          { text: "Still nothing to change." },
        ],
        review: [
          notReady("sum() has no doc comment"),
          notReady("The sum function still lacks documentation"),
          notReady("Please document sum"),
        ],
        progress: [
          { verdict: "same", reason: "the missing doc comment again" },
          { verdict: "same", reason: "still the doc comment" },
        ],
      },
      [],
      90_000,
    );
    expect(run.code).toBe(1);
    expect(result).toMatchObject({ status: "stuck", reason: "no_progress", iterations: 3 });
    expect(events.filter((e) => e.type === "progress").map((e) => e.stalled)).toEqual([1, 2]);
    // Counting could not tell the reworded issues apart: the cheap model judged, in a small request.
    const judged = requests.filter((r) => structuredName(r) === "progress");
    expect(judged).toHaveLength(2);
    expect(judged[1]?.rawBody).toContain("Please document sum");
    expect(judged[1]?.rawBody.length).toBeLessThan(4_000);
    expect(result?.assessment.remaining).toEqual(["[major] Please document sum"]);
  });

  it("ends cancelled, exit 1, on Ctrl-C during a step's command, without ticking the step done", async () => {
    const repo = await makeRepo({ "notes.txt": "notes\n" });
    // Longer than the test may take however busy the machine: only the Ctrl-C can end it.
    const slow = ownSleep(999);
    server = await startScriptedServer(
      runScript({
        classification: [classify()],
        intent: [intent([])],
        plan: [onePlan("Run the slow job", [])],
        execution: [{ toolCalls: [{ name: "run_command", args: { command: slow.join(" ") } }] }],
      }),
    );
    const { args, env } = modelFlags("openai", server);
    const task = [
      "run",
      "run the slow job",
      "--cwd",
      repo,
      "--approval",
      "auto",
      "--output-format",
      "stream-json",
    ];
    const { child, output, exited } = startCairn([...task, ...args], { home: await makeHome(), env });
    await until("the step's command to start", () => processRunning(slow), 30_000);
    child.kill("SIGINT");
    expect(await exited).toBe(1);
    const events = streamEvents(output.stdout);
    const result = events.find((e) => e.type === "result");
    expect(result).toMatchObject({ status: "cancelled", reason: "interrupted" });
    const todos = events.filter((e) => e.type === "todos").at(-1)?.todos as TodoItem[];
    expect(todos.map((todo) => todo.status)).toEqual(["in_progress"]);
    expect(events.some((e) => e.type === "validation" || e.type === "review")).toBe(false);
    expect(processRunning(slow)).toBe(false);
  });
});

/** The model runs `command` in the workspace. */
const runs = (command: string) => ({ toolCalls: [{ name: "run_command", args: { command } }] });

/** `cairn do` of JS_REPO's fix, the model's turns after the fix as given, printing the result. */
async function fixSum(after: object[], extra: string[] = []) {
  const repo = await makeRepo(JS_REPO);
  server = await startScriptedServer([{ toolCalls: [FIX_SUM] }, ...after]);
  const { args, env } = modelFlags("openai", server);
  const run = await runCairn(
    ["do", "the sum test fails, fix it", ...args, "--cwd", repo, "--approval", "auto", ...extra],
    { home: await makeHome(), env, timeoutMs: 60_000 },
  );
  const result = extra.includes("json") ? (JSON.parse(run.stdout) as RunResult) : undefined;
  return { run, result, requests: server.requests };
}

describe("a cairn do whose agent ran the project's own check", () => {
  it("ends completed on it when it ran it exactly as cairn finds it, after its last change, and it passed", {
    timeout: 60_000,
  }, async () => {
    const { run, result, requests } = await fixSum(
      [runs("npm test"), { text: "Fixed; npm test passes." }],
      ["--output-format", "json"],
    );
    expect(run.code, run.stderr).toBe(0);
    expect(requests).toHaveLength(3);
    expect(result).toMatchObject({
      status: "completed",
      reason: "checks_passed",
      validation: { ran: true, passed: true, command: "npm test" },
      assessment: {
        confidence: "high",
        verified_by: [{ command: "npm test", source: "agent", passed: true }],
        not_verified: [],
      },
    });
    expect(result?.assessment.self_assessment).toContain(
      "`npm test` passed: the project's own check, which the agent ran after its last change.",
    );
  });

  it("says so where it ends", { timeout: 60_000 }, async () => {
    const { run } = await fixSum([runs("npm test"), { text: "Fixed." }]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/✓ npm test \(run by the agent\)/);
    expect(run.stderr.trim().split("\n").at(-1)).toMatch(
      /^completed · checked by npm test, run by the agent · 1 file changed · /,
    );
  });

  it.each([
    ["a subset of the check", [runs("npm test -- test/sum.test.js"), { text: "Fixed." }]],
    [
      "the check before its last change",
      [
        runs("npm test"),
        { toolCalls: [{ name: "write_file", args: { path: "NOTES.md", content: "fixed sum\n" } }] },
        { text: "Fixed, and noted." },
      ],
    ],
    [
      "the check, failing",
      [edit("src/sum.js", "(a, b) => a + b", "(a, b) => a * b"), runs("npm test"), { text: "Tried." }],
    ],
  ])("is left unverified when the agent ran %s", { timeout: 60_000 }, async (_, after) => {
    const { run, result } = await fixSum(after, ["--output-format", "json"]);
    expect(run.code, run.stderr).toBe(3);
    expect(result).toMatchObject({ status: "unverified", reason: "unchecked", validation: null });
  });

  it("is decided by --verify when given, whatever the agent ran", { timeout: 60_000 }, async () => {
    const { run, result } = await fixSum(
      [runs("npm test"), { text: "Fixed." }],
      ["--output-format", "json", "--verify", "test -e nowhere"],
    );
    expect(run.code).toBe(1);
    expect(result).toMatchObject({
      status: "failed",
      reason: "checks_failed",
      validation: { command: "test -e nowhere" },
    });
  });
});

describe("endings of cairn do", () => {
  it("ends unverified, exit 3, when it changed files without --verify; an answer that changed nothing is completed", async () => {
    const repo = await makeRepo({ "notes.txt": "draft\n" });
    server = await startScriptedServer([
      edit("notes.txt", "draft", "final"),
      { text: "Polished." },
      { text: "It holds the notes." },
    ]);
    const { args, env } = modelFlags("openai", server);
    const dir = await makeHome();
    const changed = await runCairn(["do", "polish the notes", ...args, "--cwd", repo, "--approval", "auto"], {
      home: dir,
      env,
    });
    expect(changed.code, changed.stderr).toBe(3);
    const closing = changed.stderr.trim().split("\n").at(-1) ?? "";
    expect(closing).toMatch(
      /^unverified · not checked \(no --verify, and the agent ran no project check after its change\) · 1 file changed · /,
    );
    const sessions = JSON.parse((await runCairn(["sessions", "--json"], { home: dir })).stdout) as Array<{
      id: string;
    }>;
    const shown = await runCairn(["sessions", "show", sessions[0]!.id, "--json"], { home: dir });
    const stored = JSON.parse(shown.stdout) as { events: Array<{ type: string; result?: RunResult }> };
    const result = stored.events.find((e) => e.type === "session.finished")?.result as RunResult;
    expect(result).toMatchObject({ status: "unverified", reason: "unchecked", summary: "Polished." });
    expect(result.assessment).toMatchObject({
      confidence: "low",
      not_verified: [
        "the change to 1 file (no --verify, and the agent ran no project check after its last change)",
      ],
      // The model's answer is not a problem left to fix.
      remaining: [],
    });

    const answered = await runCairn(
      ["do", "what is in the notes?", ...args, "--cwd", repo, "--output-format", "json"],
      { home: dir, env },
    );
    expect(answered.code, answered.stderr).toBe(0);
    expect(JSON.parse(answered.stdout)).toMatchObject({ status: "completed", reason: "answered" });
  });

  it("resumed, checks an unverified do as it stands without asking the model again; with no check, says how to give one", async () => {
    const repo = await makeRepo({ "notes.txt": "draft\n" });
    server = await startScriptedServer([edit("notes.txt", "draft", "final"), { text: "Polished." }]);
    const { args, env } = modelFlags("openai", server);
    const dir = await makeHome();
    const json = ["--output-format", "json"];
    const first = await runCairn(
      ["do", "polish the notes", ...args, "--cwd", repo, "--approval", "auto", ...json],
      {
        home: dir,
        env,
      },
    );
    expect(first.code, first.stderr).toBe(3);
    const id = (JSON.parse(first.stdout) as RunResult).session_id;
    const calls = server.requests.length;

    const unchecked = await runCairn(["resume", id, ...args, ...json], { home: dir, env });
    expect(unchecked.code, unchecked.stderr).toBe(3);
    const still = JSON.parse(unchecked.stdout) as RunResult;
    expect(still).toMatchObject({ status: "unverified", reason: "unchecked" });
    expect(still.summary).toMatch(/Still not checked: resume with --verify <command>/);

    const checked = await runCairn(["resume", id, ...args, "--verify", "grep -qx final notes.txt", ...json], {
      home: dir,
      env,
    });
    expect(checked.code, checked.stderr).toBe(0);
    expect(JSON.parse(checked.stdout)).toMatchObject({
      status: "completed",
      reason: "checks_passed",
      validation: { ran: true, passed: true, command: "grep -qx final notes.txt" },
    });
    // The change was done: only the check ran, no model call.
    expect(server.requests).toHaveLength(calls);
    // Completed now: there is nothing left to resume.
    const again = await runCairn(["resume", id, ...args], { home: dir, env });
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/already completed/);
  });
});
