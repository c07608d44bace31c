import { existsSync } from "node:fs";
import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { detectSandbox } from "../../src/safety/sandbox.js";
import {
  doSession,
  EXIT_UNCHECKED,
  type Format,
  makeHome,
  makeRepo,
  modelFlags,
  runCairn,
} from "../helpers/cli.js";
import { type ScriptedServer, type ScriptedTurn, startScriptedServer } from "../support/scriptedServer.js";

const FORMATS: Format[] = ["openai", "anthropic", "ollama"];

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function cairnDo(
  format: Format,
  script: ScriptedTurn[],
  repo: string,
  task: string,
  extra: string[] = [],
) {
  server = await startScriptedServer(script);
  return doSession(server, { format, repo, task, extra });
}

/** Every tool result the model was sent, in the order it was sent, as text. */
function toolResultsSent(events: Array<Record<string, unknown>>): string[] {
  return events.filter((e) => e.type === "tool.result").map((e) => String(e.output));
}

describe.each(FORMATS)("cairn do over the %s wire format", (format) => {
  it("renames a function across several files", async () => {
    const repo = await makeRepo({
      "src/config.js": "export function parse(text) {\n  return JSON.parse(text);\n}\n",
      "src/main.js": 'import { parse } from "./config.js";\n\nconsole.log(parse("{}"));\n',
      "README.md": "Call `parse` to read the config.\n",
      "package.json": '{"type": "module"}\n',
    });
    const { run, result, events } = await cairnDo(
      format,
      [
        {
          text: "Plan: find every use of parse and rename it to parseConfig.",
          toolCalls: [{ name: "grep", args: { pattern: "\\bparse\\b" } }],
        },
        {
          toolCalls: [
            {
              name: "edit_file",
              args: {
                path: "src/config.js",
                old_string: "export function parse(",
                new_string: "export function parseConfig(",
              },
            },
            {
              name: "edit_file",
              args: {
                path: "src/main.js",
                old_string: "parse",
                new_string: "parseConfig",
                replace_all: true,
              },
            },
            {
              name: "edit_file",
              args: { path: "README.md", old_string: "`parse`", new_string: "`parseConfig`" },
            },
          ],
        },
        { text: "Renamed `parse` to `parseConfig` in 3 files." },
      ],
      repo,
      "rename the function parse to parseConfig everywhere",
      // The check that the rename holds together: main.js runs only if both files agree.
      ["--verify", "node src/main.js"],
    );
    expect(run.code, run.stderr).toBe(0);
    expect(await readFile(path.join(repo, "src/config.js"), "utf8")).toContain(
      "export function parseConfig(text)",
    );
    expect(await readFile(path.join(repo, "src/main.js"), "utf8")).toBe(
      'import { parseConfig } from "./config.js";\n\nconsole.log(parseConfig("{}"));\n',
    );
    expect(await readFile(path.join(repo, "README.md"), "utf8")).toBe(
      "Call `parseConfig` to read the config.\n",
    );
    expect(result).toMatchObject({ status: "completed", reason: "checks_passed" });
    expect(result?.validation).toMatchObject({ ran: true, passed: true });
    expect(result?.files_changed).toEqual(["README.md", "src/config.js", "src/main.js"]);
    expect(events.find((e) => e.type === "plan")?.summary).toMatch(/rename it to parseConfig/);
    expect(toolResultsSent(events)[0]).toMatch(/src\/config\.js:1:/);
  });

  it("applies an edit whose old_string has drifted indentation", async () => {
    const repo = await makeRepo({
      "app.py":
        "def total(items):\n    result = 0\n    for item in items:\n        result += item\n    return result\n",
    });
    const { run } = await cairnDo(
      format,
      [
        {
          toolCalls: [
            {
              name: "edit_file",
              args: {
                path: "app.py",
                old_string: "for item in items:\n    result += item",
                new_string: "for item in items:\n    result += item.price",
              },
            },
          ],
        },
        { text: "Done." },
      ],
      repo,
      "sum the item prices",
    );
    expect(run.code, run.stderr).toBe(EXIT_UNCHECKED);
    expect(await readFile(path.join(repo, "app.py"), "utf8")).toBe(
      "def total(items):\n    result = 0\n    for item in items:\n        result += item.price\n    return result\n",
    );
  });

  it("refuses an ambiguous edit, shows the model why, and applies its corrected call", async () => {
    const repo = await makeRepo({ "a.js": "let x = 1;\nlet y = 2;\nlet x2 = 1;\n" });
    const { run, requests, events } = await cairnDo(
      format,
      [
        {
          toolCalls: [{ name: "edit_file", args: { path: "a.js", old_string: "= 1;", new_string: "= 10;" } }],
        },
        {
          toolCalls: [
            {
              name: "edit_file",
              args: { path: "a.js", old_string: "let x = 1;", new_string: "let x = 10;" },
            },
          ],
        },
        { text: "Set x to 10." },
      ],
      repo,
      "set x to 10",
    );
    expect(run.code, run.stderr).toBe(EXIT_UNCHECKED);
    expect(await readFile(path.join(repo, "a.js"), "utf8")).toBe("let x = 10;\nlet y = 2;\nlet x2 = 1;\n");
    const refusal = toolResultsSent(events)[0];
    expect(refusal).toMatch(/line 1.*line 3|lines? 1, 3|1 and 3/is);
    expect(requests[1]?.rawBody).toContain("= 1;");
    expect(JSON.stringify(requests[1]?.body)).toMatch(/line/);
  });

  it("repairs broken tool-call JSON without another model call", async () => {
    const repo = await makeRepo({ "notes.txt": "hello\n" });
    const broken = "{'path': 'notes.txt', 'content': 'hello world\\n',}";
    // Ollama's wire format carries arguments as JSON objects, so broken JSON reaches cairn from
    // local models the other way: a model without native tool calling writes the call as text.
    const textMode = format === "ollama";
    let extra: string[] = [];
    if (textMode) {
      await writeFile(
        path.join(repo, "text-tools.yaml"),
        "models:\n  ollama/qwen2.5-coder:7b:\n    tool_calls: text\n",
      );
      extra = ["--config", path.join(repo, "text-tools.yaml")];
    }
    const firstTurn: ScriptedTurn = textMode
      ? { text: `Plan: write the file.\n\`\`\`json\n{"tool": "write_file", "arguments": ${broken}}\n\`\`\`` }
      : { toolCalls: [{ name: "write_file", args: broken }] };
    const { run, requests, events } = await cairnDo(
      format,
      [firstTurn, { text: "Wrote the file." }],
      repo,
      "write hello world to notes.txt",
      extra,
    );
    expect(run.code, run.stderr).toBe(EXIT_UNCHECKED);
    expect(await readFile(path.join(repo, "notes.txt"), "utf8")).toBe("hello world\n");
    expect(requests).toHaveLength(2);
    expect(events.filter((e) => e.type === "tool.result").every((e) => e.ok)).toBe(true);
    if (textMode) expect(JSON.stringify(requests[0]?.body)).toContain("no native tool calling");
  });

  it("re-asks after an invalid call and runs the corrected one", async () => {
    const repo = await makeRepo({ "data.txt": "42\n" });
    const { run, requests, events } = await cairnDo(
      format,
      [
        { toolCalls: [{ name: "read_file", args: { file: "data.txt" } }] },
        { toolCalls: [{ name: "read_file", args: { path: "data.txt" } }] },
        { text: "The file holds 42." },
      ],
      repo,
      "what number is in data.txt?",
    );
    expect(run.code, run.stderr).toBe(0);
    const results = events.filter((e) => e.type === "tool.result");
    expect(results[0]?.ok).toBe(false);
    expect(String(results[0]?.output)).toMatch(/path/);
    expect(results[1]?.ok).toBe(true);
    expect(JSON.stringify(requests[1]?.body)).toMatch(/invalid arguments/);
    expect(JSON.stringify(requests[2]?.body)).toContain("42");
  });
});

describe.each<Format>(["openai", "anthropic"])(
  "an edit_file call missing its closing brace, over the %s wire format",
  (format) => {
    // Every value complete, a trailing comma, no closing brace: what models send, and what
    // only the finish reason tells apart from a call cut short.
    const unclosed = '{"path": "src/format.js", "old_string": "a", "new_string": "b",';
    const file = "export const x = a;\n";

    it("runs when the model ended the call itself", async () => {
      const repo = await makeRepo({ "src/format.js": file });
      const { run, events, requests } = await cairnDo(
        format,
        [{ toolCalls: [{ name: "edit_file", args: unclosed }] }, { text: "Replaced a with b." }],
        repo,
        "swap a for b in src/format.js",
      );
      expect(run.code, run.stderr).toBe(EXIT_UNCHECKED);
      expect(await readFile(path.join(repo, "src/format.js"), "utf8")).toBe("export const x = b;\n");
      expect(events.filter((e) => e.type === "tool.result").map((e) => e.ok)).toEqual([true]);
      expect(requests).toHaveLength(2);
    });

    it("is refused, and the model told why, when the output hit its length limit", async () => {
      const repo = await makeRepo({ "src/format.js": file });
      const { run, events, requests } = await cairnDo(
        format,
        [
          { toolCalls: [{ name: "edit_file", args: unclosed }], finish: "length" },
          { text: "The call was cut off; I will send it again." },
        ],
        repo,
        "swap a for b in src/format.js",
      );
      // Nothing made the cut call good: the work ends at the output cap, not as a success.
      expect(run.code, run.stderr).toBe(1);
      expect(events.find((e) => e.type === "turn.finished")?.result).toMatchObject({
        status: "failed",
        reason: "output_cap",
      });
      expect(await readFile(path.join(repo, "src/format.js"), "utf8")).toBe(file);
      const results = events.filter((e) => e.type === "tool.result");
      expect(results.map((e) => e.ok)).toEqual([false]);
      expect(String(results[0]?.output)).toMatch(/cut off: the model's output reached its length limit/);
      expect(JSON.stringify(requests[1]?.body)).toContain("length limit");
    });
  },
);

describe("cairn do, whatever the wire format", () => {
  it("kills a command that hangs at its timeout and carries on", async () => {
    const repo = await makeRepo({ "x.txt": "x\n" });
    const { run, events, result } = await cairnDo(
      "openai",
      [
        { toolCalls: [{ name: "run_command", args: { command: "sleep 60", timeout_ms: 500 } }] },
        { toolCalls: [{ name: "run_command", args: { command: "echo after" } }] },
        { text: "The first command hung and was stopped." },
      ],
      repo,
      "run the slow thing",
    );
    expect(run.code, run.stderr).toBe(0);
    const outputs = toolResultsSent(events);
    expect(outputs[0]).toMatch(/timed out/i);
    expect(outputs[1]).toContain("after");
    // Stopped, not waited for: however busy the machine, shorter than the sleep.
    const hung = events.find((event) => event.type === "tool.result");
    expect(Number(hung?.duration_ms)).toBeLessThan(60_000);
    expect(result?.status).toBe("completed");
  });

  it("refuses paths outside the workspace", async () => {
    const repo = await makeRepo({ "inside.txt": "in\n" });
    await symlink("/etc", path.join(repo, "etc-link"));
    const { run, events } = await cairnDo(
      "openai",
      [
        {
          toolCalls: [
            { name: "read_file", args: { path: "../outside.txt" } },
            { name: "read_file", args: { path: "/etc/passwd" } },
            { name: "write_file", args: { path: "etc-link/evil", content: "x" } },
          ],
        },
        { text: "Those paths are outside the workspace." },
      ],
      repo,
      "read some files",
    );
    expect(run.code, run.stderr).toBe(0);
    const results = events.filter((e) => e.type === "tool.result");
    expect(results).toHaveLength(3);
    for (const r of results) {
      expect(r.ok).toBe(false);
      expect(String(r.output)).toMatch(/outside the workspace/);
    }
  });

  it("answers a question that needs no tools without calling any", async () => {
    const repo = await makeRepo({});
    const { run, events, requests, result } = await cairnDo(
      "anthropic",
      [{ text: "A closure is a function together with the variables it captured." }],
      repo,
      "what is a closure in JavaScript?",
    );
    expect(run.code, run.stderr).toBe(0);
    expect(events.some((e) => e.type === "tool.call")).toBe(false);
    expect(requests).toHaveLength(1);
    expect(result?.summary).toMatch(/closure is a function/);
  });

  it("answers a greeting without a model call", async () => {
    const repo = await makeRepo({});
    const { run, requests, result, events } = await cairnDo("openai", [], repo, "hi!");
    expect(run.code, run.stderr).toBe(0);
    expect(requests).toHaveLength(0);
    expect(result?.summary).toMatch(/Hello/);
    expect(events.find((e) => e.type === "route")).toMatchObject({ tier: 0, decision: "chitchat" });
  });

  it("shows a file it is asked to read without a model call", async () => {
    const repo = await makeRepo({ "src/app.js": "console.log('hi');\n" });
    const { run, requests, result } = await cairnDo("openai", [], repo, "show src/app.js");
    expect(run.code, run.stderr).toBe(0);
    expect(requests).toHaveLength(0);
    expect(result?.summary).toContain("console.log('hi');");
  });

  it("writes every event and each model call's summary to --debug-log, without secrets", async () => {
    const repo = await makeRepo({ "notes.txt": "keep\n" });
    const home = await makeHome();
    const secret = "sk-proj-Zq8vN3xTq7LmW2pR9sKd4YhB";
    const log = path.join(home, "logs", "debug.jsonl");
    await mkdir(path.dirname(log));
    server = await startScriptedServer([
      { toolCalls: [{ name: "read_file", args: { path: "notes.txt" } }] },
      { text: `Read it. (The key you gave was ${secret}.)` },
    ]);
    const { args } = modelFlags("openai", server);
    const run = await runCairn(
      ["do", `read notes.txt; my key is ${secret}`, ...args, "--cwd", repo, "--debug-log", log, "--verbose"],
      { home, env: { OPENAI_API_KEY: secret } },
    );
    expect(run.code, run.stderr).toBe(0);
    const text = await readFile(log, "utf8");
    expect(text).not.toContain(secret);
    expect(text).toContain("[REDACTED:OPENAI_API_KEY]");
    const entries = text
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { kind: string; event?: { type: string }; tools?: string[] });
    expect(entries.filter((e) => e.kind === "request")).toHaveLength(2);
    expect(entries.filter((e) => e.kind === "response")).toHaveLength(2);
    expect(entries.find((e) => e.kind === "request")?.tools).toContain("read_file");
    const types = entries.flatMap((e) => (e.event ? [e.event.type] : []));
    expect(types[0]).toBe("session.started");
    expect(types.at(-1)).toBe("session.finished");
    expect(types).toEqual(expect.arrayContaining(["tool.call", "tool.result", "usage", "message"]));
    // --verbose: each model call's line on stderr, with the text output.
    expect(run.stderr).toMatch(/· openai\/gpt-4o \(execution\)/);
  });

  it("gives the workspace's all-time cost beside the run's in the closing line and the result", async () => {
    const repo = await makeRepo({});
    const home = await makeHome();
    const usage = { input: 200_000, output: 10_000 };
    server = await startScriptedServer([
      { text: "One.", usage },
      { text: "Two.", usage },
    ]);
    const { args, env } = modelFlags("openai", server);
    const first = await runCairn(["do", "say one", ...args, "--cwd", repo, "--output-format", "json"], {
      home,
      env,
    });
    const result = JSON.parse(first.stdout) as { cost_usd: number; workspace_cost_usd: number };
    expect(result.cost_usd).toBeGreaterThan(0);
    expect(result.workspace_cost_usd).toBeCloseTo(result.cost_usd, 10);
    const second = await runCairn(["do", "say two", ...args, "--cwd", repo], { home, env });
    expect(second.code, second.stderr).toBe(0);
    const closing = second.stderr.trim().split("\n").at(-1) ?? "";
    expect(closing).toMatch(/^completed · .* · \$\d+\.\d+ · \$\d+\.\d+ all-time here$/);
    const [run, allTime] = [...closing.matchAll(/\$(\d+\.\d+)/g)].map((match) => Number(match[1]));
    expect(allTime).toBeCloseTo((run ?? 0) + result.cost_usd, 2);
  });

  it("carries out plain file commands with the file tools and no model call", async () => {
    const repo = await makeRepo({ "a.txt": "hi there\n", "old.txt": "gone soon\n", "src/keep.txt": "k\n" });
    const steps: Array<[string, string]> = [
      ["move a.txt to b.txt", "move_file"],
      ["copy b.txt to src/c.txt", "copy_file"],
      ["replace hi with bye in b.txt", "edit_file"],
      ["write 'fresh start' to notes.txt", "write_file"],
      ["delete old.txt", "delete_file"],
    ];
    for (const [task, tool] of steps) {
      const { run, requests, result, events } = await cairnDo("openai", [], repo, task);
      // Its own postcondition is its check (a move that breaks an import is what --verify is for).
      expect(run.code, run.stderr).toBe(0);
      expect(requests).toHaveLength(0);
      expect(events.find((e) => e.type === "route")).toMatchObject({ tier: 0, decision: tool });
      expect(events.find((e) => e.type === "tool.call")).toMatchObject({ tool });
      expect(result).toMatchObject({
        status: "completed",
        reason: "checks_passed",
        usage: { input_tokens: 0, output_tokens: 0 },
      });
    }
    expect(existsSync(path.join(repo, "a.txt"))).toBe(false);
    expect(await readFile(path.join(repo, "b.txt"), "utf8")).toBe("bye there\n");
    expect(await readFile(path.join(repo, "src/c.txt"), "utf8")).toBe("hi there\n");
    expect(await readFile(path.join(repo, "notes.txt"), "utf8")).toBe("fresh start\n");
    expect(existsSync(path.join(repo, "old.txt"))).toBe(false);
  });

  it("leaves an ambiguous file command to the model", async () => {
    const repo = await makeRepo({ "a.txt": "hi, this is it\n" });
    const { run, requests } = await cairnDo(
      "openai",
      [{ text: "Which hi? There are two." }],
      repo,
      "replace hi with bye in a.txt",
    );
    expect(run.code, run.stderr).toBe(0);
    expect(requests).toHaveLength(1);
    expect(await readFile(path.join(repo, "a.txt"), "utf8")).toBe("hi, this is it\n");
  });

  it("ends a file command that is refused as failed, with the reason", async () => {
    const repo = await makeRepo({ "a.txt": "x\n" });
    server = await startScriptedServer([]);
    const { run, requests, result } = await doSession(server, {
      repo,
      task: "delete a.txt",
      extra: ["--approval", "read-only"],
    });
    expect(run.code).toBe(1);
    expect(requests).toHaveLength(0);
    expect(result?.status).toBe("failed");
    expect(existsSync(path.join(repo, "a.txt"))).toBe(true);
  });

  it("answers 'what does X do' from the file in one call without tools", async () => {
    const repo = await makeRepo({ "src/app.js": "export const add = (a, b) => a + b;\n" });
    const { run, requests, result, events } = await cairnDo(
      "openai",
      [{ text: "It exports `add`, which adds two numbers." }],
      repo,
      "what does src/app.js do?",
    );
    expect(run.code, run.stderr).toBe(0);
    expect(requests).toHaveLength(1);
    expect(requests[0]?.body.tools).toBeUndefined();
    expect(requests[0]?.rawBody).toContain("export const add");
    expect(result?.summary).toMatch(/adds two numbers/);
    expect(events.some((e) => e.type === "plan")).toBe(false);
  });

  it("reports usage and cost equal to the server's counts times the configured price", async () => {
    const repo = await makeRepo({ "a.txt": "a\n" });
    await writeFile(
      path.join(repo, "prices.yaml"),
      "models:\n  openai/gpt-4o:\n    price: { input: 2.5, output: 10, cached_input: 1.25 }\n",
    );
    const script: ScriptedTurn[] = [
      {
        toolCalls: [{ name: "read_file", args: { path: "a.txt" } }],
        usage: { input: 1000, output: 50, cached: 400 },
      },
      { text: "It says a.", usage: { input: 1200, output: 20, cached: 1000 } },
    ];
    server = await startScriptedServer(script);
    const { args, env } = modelFlags("openai", server);
    const run = await runCairn(
      [
        "do",
        "what is in a.txt",
        ...args,
        "--cwd",
        repo,
        "--config",
        path.join(repo, "prices.yaml"),
        "--output-format",
        "json",
      ],
      { home: await makeHome(), env },
    );
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result.usage.input_tokens).toBe(2200);
    expect(result.usage.output_tokens).toBe(70);
    expect(result.usage.cached_input_tokens).toBe(1400);
    const perCall = [
      ((1000 - 400) * 2.5 + 400 * 1.25 + 50 * 10) / 1e6,
      ((1200 - 1000) * 2.5 + 1000 * 1.25 + 20 * 10) / 1e6,
    ];
    expect(result.cost_usd).toBeCloseTo(perCall[0]! + perCall[1]!, 12);
    expect(result.usage.by_phase.execution.cost_usd).toBeCloseTo(result.cost_usd, 12);
    expect(Object.keys(result).sort()).toEqual(
      [
        "assessment",
        "cost_usd",
        "duration_ms",
        "files_changed",
        "iterations",
        "reason",
        "session_id",
        "status",
        "summary",
        "usage",
        "validation",
        "workspace_cost_usd",
      ].sort(),
    );
    // A fresh store: the workspace's all-time cost is this run's.
    expect(result.workspace_cost_usd).toBeCloseTo(result.cost_usd, 12);
  });

  it("prints the plan, each tool call and a closing usage line on stderr, the answer alone on stdout", async () => {
    const repo = await makeRepo({ "a.txt": "a\n" });
    server = await startScriptedServer([
      {
        text: "Plan: read the file and report.",
        toolCalls: [{ name: "read_file", args: { path: "a.txt" } }],
      },
      { text: "It contains **a**.", usage: { input: 10, output: 5 } },
    ]);
    const { args, env } = modelFlags("openai", server);
    const run = await runCairn(["do", "tell me what a.txt contains", ...args, "--cwd", repo], {
      home: await makeHome(),
      env,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/Plan: read the file and report\./);
    expect(run.stderr).toMatch(/● read_file a\.txt/);
    expect(run.stderr).toMatch(/usage: [\d,]+ in \([\d,]+ cached\) · [\d,]+ out · .*(\$|cost unknown)/);
    // What a script reading cairn's output gets: the answer, and nothing else.
    expect(run.stdout.trim()).toBe("It contains **a**.");
  });

  it("stops with exit 2 and says which variable to set when no model is configured", async () => {
    const repo = await makeRepo({});
    const run = await runCairn(["do", "anything", "--cwd", repo], { home: await makeHome() });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/OPENROUTER_API_KEY/);
    expect(run.stderr).toMatch(/ANTHROPIC_API_KEY/);
  });

  it("runs --verify after the loop and fails the task when the check fails", async () => {
    const repo = await makeRepo({ "a.txt": "a\n" });
    const script = (content: string): ScriptedTurn[] => [
      { toolCalls: [{ name: "write_file", args: { path: "a.txt", content } }] },
      { text: "Wrote it." },
    ];
    const check = ["--verify", "grep -q good a.txt"];
    const good = await cairnDo("openai", script("good\n"), repo, "write good into a.txt", check);
    expect(good.run.code, good.run.stderr).toBe(0);
    expect(good.result?.validation).toMatchObject({ ran: true, passed: true, command: "grep -q good a.txt" });
    await server?.close();
    const bad = await cairnDo("openai", script("bad\n"), repo, "write bad into a.txt", check);
    expect(bad.run.code).toBe(1);
    expect(bad.result?.status).toBe("failed");
    expect(bad.result?.validation).toMatchObject({ ran: true, passed: false });
  });

  it.skipIf(detectSandbox().kind !== "bwrap")(
    "runs --verify checks inside the sandbox, like the model's own commands",
    async () => {
      const repo = await makeRepo({ "a.txt": "a\n" });
      const home = await makeHome();
      const probe = path.join(home, "written-by-a-check");
      server = await startScriptedServer([
        { toolCalls: [{ name: "write_file", args: { path: "a.txt", content: "b\n" } }] },
        { text: "Changed it." },
      ]);
      const { args, env } = modelFlags("openai", server);
      const run = await runCairn(
        [
          "do",
          "check the repo",
          ...args,
          "--cwd",
          repo,
          "--approval",
          "auto",
          "--output-format",
          "json",
          "--verify",
          `touch ${probe}`,
        ],
        { home, env },
      );
      expect(run.code).toBe(1);
      expect(JSON.parse(run.stdout).validation).toMatchObject({ ran: true, passed: false });
      expect(existsSync(probe)).toBe(false);
    },
  );

  it("warns that --max-cost cannot be enforced when the model's price is unknown", async () => {
    const repo = await makeRepo({});
    const { run, events } = await cairnDo("openai", [{ text: "Answered." }], repo, "explain closures", [
      "--model",
      "openai/unpriced-model",
      "--max-cost",
      "0.01",
    ]);
    expect(run.code, run.stderr).toBe(0);
    const warning = events.find((e) => e.type === "error" && e.fatal === false);
    expect(String(warning?.message)).toMatch(/price of openai\/unpriced-model is unknown.*--max-cost/);
  });

  it("names a missing extra root as a configuration mistake, exit 2", async () => {
    const repo = await makeRepo({});
    await writeFile(path.join(repo, "roots.yaml"), "workspace:\n  extra_roots: [../no-such-folder]\n");
    server = await startScriptedServer([]);
    const { args, env } = modelFlags("openai", server);
    const run = await runCairn(
      ["do", "anything", ...args, "--cwd", repo, "--config", path.join(repo, "roots.yaml")],
      {
        home: await makeHome(),
        env,
      },
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/workspace\.extra_roots: \.\.\/no-such-folder does not exist/);
    expect(run.stderr).not.toMatch(/unexpected error/);
  });
});
