import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { TodoItem } from "../../src/events/types.js";
import { makeHome, makeRepo, modelFlags, runCairn } from "../helpers/cli.js";
import {
  cairnRun,
  classify,
  FIX_SUM,
  FIX_SUM_RUN,
  intent,
  JS_REPO,
  notReady,
  onePlan,
  ready,
  runScript,
  structuredName,
} from "../helpers/runScript.js";
import { type ScriptedServer, startScriptedServer } from "../support/scriptedServer.js";

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("cairn run", () => {
  it("fixes a JS repo with a failing npm test: validated, reviewed, completed", async () => {
    const repo = await makeRepo(JS_REPO);
    const { run, events, result } = await cairnRun(repo, "the sum test fails, fix it", FIX_SUM_RUN);
    expect(run.code, run.stderr).toBe(0);
    expect(await readFile(path.join(repo, "src/sum.js"), "utf8")).toContain("a + b");
    expect(result?.status).toBe("completed");
    expect(result?.iterations).toBe(1);
    expect(result?.validation).toMatchObject({ ran: true, passed: true });
    expect(result?.validation?.command).toMatch(/npm test|node --test/);
    expect(events.find((e) => e.type === "route")).toMatchObject({ tier: 2 });
    expect(events.find((e) => e.type === "review")).toMatchObject({ ready: true });
    const todos = events
      .filter((e) => e.type === "todos")
      .map((e) => (e.todos as TodoItem[]).map((t) => t.status));
    expect(todos[0]).toEqual(["pending"]);
    expect(todos.at(-1)).toEqual(["completed"]);

    // Usage by phase adds up to the total.
    const phases = Object.values(result?.usage.by_phase ?? {});
    expect(Object.keys(result?.usage.by_phase ?? {}).sort()).toEqual([
      "analysis",
      "execution",
      "planning",
      "review",
      "routing",
    ]);
    for (const kind of ["input_tokens", "output_tokens", "cached_input_tokens"] as const) {
      expect(phases.reduce((sum, p) => sum + p[kind], 0)).toBe(result?.usage[kind]);
    }
    const report = await readFile(path.join(repo, ".cairn/reports", `${result?.session_id}.md`), "utf8");
    expect(report).toMatch(/\*\*Status:\*\* completed/);
    expect(report).toMatch(/`src\/sum.js` \(modified\)/);
    expect(report).toMatch(/\| planning \| 1 \|/);
  });

  it("carries a failed validation into the next plan and fixes it in the second round", async () => {
    const repo = await makeRepo({
      "main.py": 'print("hello world")\n',
      "expected.txt": "Hello, world!\n",
    });
    const { run, result, requests } = await cairnRun(repo, "make the program print the expected greeting", {
      classification: [classify()],
      intent: [intent(["main.py"])],
      plan: [onePlan("Fix the greeting", ["main.py"]), onePlan("Add the comma and the bang", ["main.py"])],
      execution: [
        {
          toolCalls: [
            {
              name: "edit_file",
              args: { path: "main.py", old_string: "hello world", new_string: "Hello world" },
            },
          ],
        },
        { text: "Capitalised it." },
        {
          toolCalls: [
            {
              name: "edit_file",
              args: { path: "main.py", old_string: "Hello world", new_string: "Hello, world!" },
            },
          ],
        },
        { text: "Punctuation fixed." },
      ],
      review: [notReady("The output still differs from expected.txt."), ready],
    });
    expect(run.code, run.stderr).toBe(0);
    expect(result?.status).toBe("completed");
    expect(result?.iterations).toBe(2);
    expect(await readFile(path.join(repo, "main.py"), "utf8")).toBe('print("Hello, world!")\n');
    const plans = requests.filter((r) => structuredName(r) === "plan");
    expect(plans).toHaveLength(2);
    // The second plan request carries the first round's failure: the diff against expected.txt.
    expect(plans[1]?.rawBody).toContain("Hello, world!");
    expect(plans[1]?.rawBody).toMatch(/Pending issues/);
    expect(plans[1]?.rawBody).toMatch(/Validation failed/);
    // The second round's step is a modify step too: what a modify step asks for is in the
    // conversation once, not sent again with every request after it.
    const steps = requests.filter((r) => !structuredName(r));
    const instruction = "This is a modify step. Read the code you change first";
    expect(steps.at(-1)?.rawBody.split(instruction)).toHaveLength(2);
    expect(steps.at(-1)?.rawBody).toContain("Step 1 of the plan (1/1): Add the comma and the bang");
  });

  it("fixes an off-by-one by mutation repair, with no extra model round", async () => {
    const repo = await makeRepo({
      "main.py": "def squares(n):\n    return [i * i for i in range(1, n)]\n\nprint(squares(5))\n",
      "expected.txt": "[1, 4, 9, 16, 25]\n",
    });
    const { run, result, requests, events } = await cairnRun(repo, "squares(5) should include 25", {
      classification: [classify()],
      intent: [intent(["main.py"])],
      plan: [onePlan("Fix squares", ["main.py"])],
      execution: [
        {
          toolCalls: [
            {
              name: "edit_file",
              args: {
                path: "main.py",
                old_string: "[i * i for i in range(1, n)]",
                new_string: "[i ** 2 for i in range(1, n)]",
              },
            },
          ],
        },
        { text: "Used the power operator." },
      ],
      review: [ready],
    });
    expect(run.code, run.stderr).toBe(0);
    expect(result?.status).toBe("completed");
    expect(result?.iterations).toBe(1);
    expect(await readFile(path.join(repo, "main.py"), "utf8")).toContain("range(1, n + 1)");
    expect(events.some((e) => e.type === "repair" && e.kind === "mutation" && e.kept)).toBe(true);
    // classification, intent, plan, two tool-loop turns, review: nothing more.
    expect(requests).toHaveLength(6);
    // The step's prompt says what a modify step asks for, and nothing of the other categories.
    const step = requests.find((r) => !structuredName(r));
    expect(step?.rawBody).toContain("This is a modify step. Read the code you change first");
    expect(step?.rawBody).not.toContain("Change only documentation");
  });

  it("repairs a skipping guard and a stray /100 together, reporting what it tried", async () => {
    const repo = await makeRepo({
      "main.py": [
        "def total(items):",
        "    s = 0",
        "    for price, discount in items:",
        "        if discount > 0.5:",
        "            continue",
        "        s += price * (1 - discount)",
        "    return s",
        "",
        "",
        "print(total([(100, 0.25), (100, 0.75)]))",
        "",
      ].join("\n"),
      "expected.txt": "100.0\n",
    });
    const { run, result, requests, events } = await cairnRun(repo, "total() should count every item", {
      classification: [classify()],
      intent: [intent(["main.py"])],
      plan: [onePlan("Fix total", ["main.py"])],
      execution: [
        {
          toolCalls: [
            {
              name: "edit_file",
              args: {
                path: "main.py",
                old_string: "s += price * (1 - discount)",
                new_string: "s += price * (1 - discount / 100)",
              },
            },
          ],
        },
        { text: "Discounts are percentages." },
      ],
      review: [ready],
    });
    expect(run.code, run.stderr).toBe(0);
    expect(result?.status).toBe("completed");
    const source = await readFile(path.join(repo, "main.py"), "utf8");
    expect(source).not.toContain("continue");
    expect(source).not.toContain("/ 100");
    const repairs = events.filter((e) => e.type === "repair" && e.kind === "mutation");
    expect(repairs.length).toBeGreaterThan(1);
    expect(repairs.at(-1)).toMatchObject({
      kept: true,
      description: expect.stringMatching(/remove the guard.* \+ drop \/ 100/),
    });
    // classification, intent, plan, two tool-loop turns, review: the repair asked no model.
    expect(requests).toHaveLength(6);
    const report = await readFile(path.join(repo, ".cairn/reports", `${result?.session_id}.md`), "utf8");
    expect(report).toMatch(
      /## Deterministic repair\n- Deterministic repair: tried \d+ mutations \(\d+ of them pairs\)/,
    );
  });

  it("asks for a usable plan as many times as planning.attempts says, then fails saying so", async () => {
    const repo = await makeRepo({ "main.py": 'print("hi")\n', "expected.txt": "hi\n" });
    await writeFile(path.join(repo, "planning.yaml"), "planning:\n  attempts: 5\n");
    const empty = { summary: "nothing", steps: [] };
    const { run, result, requests } = await cairnRun(
      repo,
      "tidy main.py",
      { classification: [classify()], intent: [intent(["main.py"])], plan: Array(5).fill(empty) },
      ["--config", "planning.yaml"],
    );
    expect(run.code).toBe(1);
    expect(result?.status).toBe("failed");
    expect(result?.summary).toMatch(/no valid plan in 5 attempts \(last problem: the plan has no steps\)/);
    expect(requests.filter((r) => structuredName(r) === "plan")).toHaveLength(5);
  });

  it("repairs a failing test by changing an operator, keeping it only once the test passes", async () => {
    const repo = await makeRepo(JS_REPO);
    const { run, result, requests, events } = await cairnRun(repo, "the sum test fails, fix it", {
      classification: [classify()],
      intent: [intent(["src/sum.js"])],
      plan: [onePlan("Document sum", ["src/sum.js"])],
      execution: [
        {
          toolCalls: [
            {
              name: "edit_file",
              args: {
                path: "src/sum.js",
                old_string: "export function",
                new_string: "// Sums values.\nexport function",
              },
            },
          ],
        },
        { text: "Documented it." },
      ],
      review: [ready],
    });
    expect(run.code, run.stderr).toBe(0);
    expect(result?.status).toBe("completed");
    expect(await readFile(path.join(repo, "src/sum.js"), "utf8")).toContain("(a, b) => a + b");
    expect(events.find((e) => e.type === "repair" && e.kept)).toMatchObject({
      description: "src/sum.js:3 - → +",
    });
    // No second round: classification, intent, plan, two tool-loop turns, review.
    expect(requests).toHaveLength(6);
  });

  it("escalates to the strong model when the same failure repeats, then stops as stuck", async () => {
    // A bug no small mutation fixes (a `-` for a `+` would be repaired without a model).
    const repo = await makeRepo({
      ...JS_REPO,
      "src/sum.js": "export function sum(values) {\n  return values.length;\n}\n",
    });
    await writeFile(path.join(repo, "profiles.yaml"), "profiles:\n  strong: openai/gpt-strong\n");
    const { run, result, requests, events } = await cairnRun(
      repo,
      "the sum test fails, fix it",
      {
        classification: [classify()],
        intent: [intent(["src/sum.js"])],
        plan: [1, 2, 3].map((n) => onePlan(`Attempt ${n}`, ["src/sum.js"])),
        execution: [
          {
            toolCalls: [
              {
                name: "edit_file",
                args: {
                  path: "src/sum.js",
                  old_string: "export function",
                  new_string: "// Sums values.\nexport function",
                },
              },
            ],
          },
          { text: "Documented it." },
          { text: "I looked again but changed nothing." },
          { text: "Still nothing to change." },
        ],
        review: [1, 2, 3].map(() => notReady("sum still subtracts")),
      },
      ["--config", path.join(repo, "profiles.yaml")],
    );
    expect(run.code).toBe(1);
    expect(result?.status).toBe("stuck");
    expect(result?.iterations).toBe(3);
    expect(events.find((e) => e.type === "escalation")).toMatchObject({
      from: "openai/gpt-4o",
      to: "openai/gpt-strong",
    });
    const models = requests.map((r) => r.body.model);
    expect(models.filter((m) => m === "gpt-strong").length).toBeGreaterThanOrEqual(2);
    expect(models.slice(0, 3).every((m) => m === "gpt-4o")).toBe(true);
    expect(result?.summary).toMatch(/Stuck/);
    expect(result?.reason).toBe("no_progress");
    // The same failing test each round: the reviewer was asked once, not for every repeat.
    expect(requests.filter((r) => structuredName(r) === "review")).toHaveLength(1);
    expect(events.filter((e) => e.type === "progress").map((e) => [e.verdict, e.stalled])).toEqual([
      ["same", 1],
      ["same", 2],
    ]);
  });

  it("names each step of its plan once where it prints, and its answer once in its report", async () => {
    const repo = await makeRepo({ "notes.txt": "x\n" });
    server = await startScriptedServer(
      runScript({
        classification: [classify()],
        intent: [intent([])],
        plan: [
          {
            summary: "Look around, then report.",
            steps: [
              { id: "1", title: "Look at the files", category: "analysis", files: [], done_when: "seen" },
              { id: "2", title: "Report what is there", category: "analysis", files: [], done_when: "said" },
            ],
          },
        ],
        execution: [{ text: "Looked." }, { text: "There is one file, notes.txt." }],
      }),
    );
    const { args, env } = modelFlags("openai", server);
    const run = await runCairn(["run", "look around and report", ...args, "--cwd", repo], {
      home: await makeHome(),
      env,
    });
    expect(run.code, run.stderr).toBe(0);
    for (const title of ["Look at the files", "Report what is there"])
      expect(run.stderr.split("\n").filter((line) => line.includes(title))).toHaveLength(1);
    expect(run.stderr).toContain("── step 2 of 2");
    expect(run.stdout.split("There is one file, notes.txt.").length - 1).toBe(2);
  });

  it("answers a greeting and a question about a file with no plan, edit or validation", async () => {
    const repo = await makeRepo({ "src/app.js": "export const add = (a, b) => a + b;\n" });
    const greeting = await cairnRun(repo, "hello", {});
    expect(greeting.run.code, greeting.run.stderr).toBe(0);
    expect(greeting.requests).toHaveLength(0);
    const question = await cairnRun(repo, "what does src/app.js do?", {
      execution: [{ text: "It exports `add`, which adds two numbers." }],
    });
    expect(question.run.code, question.run.stderr).toBe(0);
    expect(question.requests).toHaveLength(1);
    for (const { events } of [greeting, question]) {
      expect(
        events.some(
          (e) => ["plan", "validation", "review", "tool.call"].includes(e.type) && e.tool !== "read_file",
        ),
      ).toBe(false);
    }
    expect(question.result?.summary).toMatch(/adds two numbers/);
  });

  it("stops at the cost cap as budget_exceeded, keeping the edits so far", async () => {
    const repo = await makeRepo(JS_REPO);
    await writeFile(
      path.join(repo, "price.yaml"),
      "models:\n  openai/gpt-4o:\n    price: { input: 1, output: 0 }\n",
    );
    const usage = { input: 1000, output: 10 };
    const { run, result } = await cairnRun(
      repo,
      "the sum test fails, fix it",
      {
        classification: [classify()],
        intent: [intent(["src/sum.js"])],
        plan: [onePlan("Fix the reducer", ["src/sum.js"])],
        execution: [
          { toolCalls: [FIX_SUM], usage },
          { toolCalls: [{ name: "read_file", args: { path: "src/sum.js" } }], usage },
          { text: "never reached", usage },
        ],
        structuredUsage: usage,
      },
      ["--config", path.join(repo, "price.yaml"), "--max-cost", "0.0045"],
    );
    expect(run.code).toBe(1);
    expect(result?.status).toBe("budget_exceeded");
    expect(await readFile(path.join(repo, "src/sum.js"), "utf8")).toContain("a + b");
    expect(result?.files_changed).toEqual(["src/sum.js"]);
    expect(result?.summary).toMatch(/cost cap/);
    expect(existsSync(path.join(repo, ".cairn/reports", `${result?.session_id}.md`))).toBe(true);
  });
});

describe("cairn run fast path and consultation", () => {
  it("takes a confident trivial task straight to one tool loop, without a plan, and still checks its change", async () => {
    const repo = await makeRepo({ "notes.md": "# Notes\n" });
    const { run, result, events, requests } = await cairnRun(repo, "add a line 'hello' to notes.md", {
      classification: [{ category: "docs", complexity: "trivial", needs_tools: true, confidence: 0.95 }],
      execution: [
        { toolCalls: [{ name: "append_file", args: { path: "notes.md", content: "hello\n" } }] },
        { text: "Added." },
      ],
      // Nothing of the project's can check a note: the model proposes how, and the reviewer reads it.
      check: [{ command: "grep -qx hello notes.md", reason: "the line must be there" }],
      review: [ready],
    });
    expect(run.code, run.stderr).toBe(0);
    expect(result).toMatchObject({ status: "completed", reason: "checks_passed" });
    expect(await readFile(path.join(repo, "notes.md"), "utf8")).toBe("# Notes\nhello\n");
    expect(events.find((e) => e.type === "route")).toMatchObject({ tier: 1, decision: "single tool loop" });
    expect(events.find((e) => e.type === "validation")).toMatchObject({
      ran: true,
      passed: true,
      checks: [expect.objectContaining({ command: "grep -qx hello notes.md", source: "proposed" })],
    });
    // Only the model vouches for that check: cairn says it is less sure.
    expect(result?.assessment.confidence).toBe("medium");
    expect(requests.filter((r) => structuredName(r) === "plan")).toHaveLength(0);
  });

  it("lets the model consult the strong model mid-step", async () => {
    const repo = await makeRepo(JS_REPO);
    await writeFile(path.join(repo, "profiles.yaml"), "profiles:\n  strong: openai/gpt-strong\n");
    const { run, requests, events } = await cairnRun(
      repo,
      "the sum test fails, fix it",
      {
        classification: [classify()],
        intent: [intent(["src/sum.js"])],
        plan: [onePlan("Fix the reducer", ["src/sum.js"])],
        execution: [
          { toolCalls: [{ name: "consult", args: { question: "Should reduce start at 0?" } }] },
          { text: "Yes: 0 is the identity of addition." },
          { toolCalls: [FIX_SUM] },
          { text: "Fixed." },
        ],
        review: [ready],
      },
      ["--config", path.join(repo, "profiles.yaml")],
    );
    expect(run.code, run.stderr).toBe(0);
    const consulted = requests.find((r) => r.body.model === "gpt-strong");
    expect(consulted?.rawBody).toContain("Should reduce start at 0?");
    const answer = events.find((e) => e.type === "tool.result" && e.tool === "consult");
    expect(answer?.output).toMatch(/identity of addition/);
  });
});

describe("cairn run on an OpenAI-compatible server (vLLM, LM Studio, llama.cpp)", () => {
  it("prints nothing of the AI SDK's own on stderr", async () => {
    const repo = await makeRepo({ "a.txt": "a\n" });
    server = await startScriptedServer([
      { text: JSON.stringify(classify()) },
      { text: JSON.stringify(intent(["a.txt"])) },
      { text: JSON.stringify(onePlan("Change a.txt", ["a.txt"])) },
      { toolCalls: [{ name: "write_file", args: { path: "a.txt", content: "b\n" } }] },
      { text: "Changed it." },
      { text: JSON.stringify(ready) },
    ]);
    const run = await runCairn(
      [
        "run",
        "change a.txt to b",
        "--model",
        "openai-compatible/local",
        "--base-url",
        server.openaiBaseUrl,
        "--cwd",
        repo,
        "--approval",
        "auto",
        "--verify",
        "grep -qx b a.txt",
      ],
      { home: await makeHome(), env: {}, timeoutMs: 60_000 },
    );
    expect(run.stderr).not.toMatch(/AI SDK|Warning/);
    expect(run.code, run.stdout).toBe(0);
  });
});
