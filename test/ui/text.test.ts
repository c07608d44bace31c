import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import type { CairnEvent, EventOf, StampedEvent, TodoItem } from "../../src/events/types.js";
import { TextRenderer } from "../../src/ui/text.js";
import { finished, usage } from "./tui/events.js";

const DIFF = "Index: a.ts\n===\n--- a.ts\n+++ a.ts\n@@ -1 +1 @@\n-old\n+new\n";

async function render(
  events: CairnEvent[],
  verbose = false,
  columns?: number,
  askedAtTerminal = false,
): Promise<string[]> {
  const out = Object.assign(new PassThrough(), columns ? { columns } : {});
  let text = "";
  out.on("data", (chunk) => {
    text += chunk;
  });
  const renderer = new TextRenderer({ out, color: false, interactive: false, verbose, askedAtTerminal });
  events.forEach((event, seq) => {
    renderer.handle({ ...event, session_id: "s", seq, ts: new Date(0).toISOString() } as StampedEvent);
  });
  await renderer.flush();
  return text.trimEnd().split("\n");
}

describe("the text renderer", () => {
  it("names each TODO once: the list when it is new, then which step runs by its number", async () => {
    const todos = (a: TodoItem["status"], b: TodoItem["status"]): EventOf<"todos"> => ({
      type: "todos",
      todos: [
        { id: "1", content: "Look at the files", status: a },
        { id: "2", content: "Report what is there", status: b },
      ],
    });
    const lines = await render([
      todos("pending", "pending"),
      todos("in_progress", "pending"),
      todos("completed", "pending"),
      todos("completed", "in_progress"),
      todos("completed", "completed"),
    ]);
    expect(lines).toEqual([
      "  [ ] 1. Look at the files",
      "  [ ] 2. Report what is there",
      "── step 1 of 2",
      "── step 2 of 2",
    ]);
    for (const title of ["Look at the files", "Report what is there"])
      expect(lines.filter((line) => line.includes(title))).toHaveLength(1);
  });

  it("shows a revised plan's list whole again, what was done before it ticked", async () => {
    const lines = await render([
      { type: "todos", todos: [{ id: "1", content: "Fix it", status: "pending" }] },
      {
        type: "todos",
        todos: [
          { id: "1", content: "Fix it", status: "completed" },
          { id: "2", content: "Fix it properly", status: "pending" },
        ],
      },
    ]);
    expect(lines).toEqual(["  [ ] 1. Fix it", "  [x] 1. Fix it", "  [ ] 2. Fix it properly"]);
  });

  it("titles a call by the title its event carries and shows an edit's diff from its data", async () => {
    const lines = await render([
      {
        type: "tool.call",
        call_id: "1",
        tool: "copy_file",
        kind: "edit",
        title: "copy_file a.ts → b.ts",
        args: { source: "a.ts", destination: "b.ts" },
        permission: "write",
      },
      {
        type: "tool.call",
        call_id: "2",
        tool: "edit_file",
        kind: "edit",
        title: "edit_file a.ts",
        args: { path: "a.ts", old_string: "old", new_string: "new" },
        permission: "write",
      },
      {
        type: "tool.result",
        call_id: "2",
        tool: "edit_file",
        ok: true,
        output: "Edited a.ts: replaced line 1.",
        data: { kind: "file_change", path: "a.ts", diff: DIFF, strategy: "exact" },
        duration_ms: 3,
      },
    ]);
    expect(lines).toEqual([
      "● copy_file a.ts → b.ts",
      "● edit_file a.ts",
      "  ✓ Edited a.ts: replaced line 1. 3ms",
      "    --- a.ts",
      "    +++ a.ts",
      "    @@ -1 +1 @@",
      "    -old",
      "    +new",
    ]);
  });

  it("says a refusal whole, with the rule at its end that would allow the call", async () => {
    const refusal =
      "Refused: run_command npm publish runs outside cairn's sandbox, so it needs approval, and nobody can answer " +
      "in this headless run. Continue without it; the user can allow it with the rule {action: allow, command: npm} " +
      "in the config's rules.";
    const lines = await render([
      {
        type: "tool.call",
        call_id: "1",
        tool: "run_command",
        kind: "execute",
        title: "npm publish",
        args: { command: "npm publish" },
        permission: "exec",
      },
      { type: "tool.result", call_id: "1", tool: "run_command", ok: false, output: refusal, duration_ms: 0 },
    ]);
    expect(lines.join("\n")).toContain("{action: allow, command: npm} in the config's rules.");
  });

  it("gives the speed of an answer only when there is enough of it to measure", async () => {
    const finish = (output: number, seconds: number): CairnEvent[] => [
      {
        ...(usage(100, output, 0) as EventOf<"usage">),
        duration_ms: seconds * 1000,
        tokens_per_second: output / seconds,
      },
      finished("completed", seconds * 1000),
    ];
    expect((await render(finish(12, 0.0025))).at(-1)).not.toContain("tok/s");
    expect((await render(finish(600, 10))).at(-1)).toContain("60.0 tok/s");
  });

  it("breaks its closing line between its parts where the terminal is narrower, never inside a word", async () => {
    const events: CairnEvent[] = [finished("unverified", 12_400)];
    const wide = await render(events, false, 200);
    expect(wide).toHaveLength(1);
    const narrow = await render(events, false, 80);
    expect(narrow).toEqual([
      "unverified · not checked (no --verify, and the agent ran no project check",
      "  after its change) · 12.4s",
      "usage: 0 in (0 cached) · 0 out · $0.00",
    ]);
    for (const line of narrow) expect(line.length).toBeLessThanOrEqual(80);
  });

  // Issue 40's tour: cairn demo at 80 columns showed "…and f" / "ix it." and a warning cut the same way.
  it("breaks a plan or a warning between words where the terminal is narrower", async () => {
    const summary =
      "Reproduce the failing test, find the faulty function in src/stats.js and fix it before anything else.";
    const events: CairnEvent[] = [
      { type: "plan", summary, steps: [], iteration: 1 },
      {
        type: "error",
        message: `ollama/qwen2.5-coder:7b: ${"a request needed more than its window; ".repeat(3)}`,
        fatal: false,
      },
    ];
    const narrow = await render(events, false, 80);
    expect(narrow.filter((line) => line.length > 80)).toEqual([]);
    expect(narrow.slice(0, 2)).toEqual([
      "Plan: Reproduce the failing test, find the faulty function in src/stats.js and",
      "  fix it before anything else.",
    ]);
    // Piped, each stays one line for a program to read.
    expect((await render(events)).slice(0, 1)).toEqual([`Plan: ${summary}`]);
  });

  it("renders the answer at a terminal that says it has no columns (a pty nobody sized)", async () => {
    const out = Object.assign(new PassThrough(), { columns: 0, isTTY: true });
    let text = "";
    out.on("data", (chunk) => {
      text += chunk;
    });
    const renderer = new TextRenderer({ out, progress: new PassThrough(), color: false, interactive: true });
    renderer.handle({ type: "message", text: "Moved a.txt to b.txt.", session_id: "s", seq: 1, ts: "" });
    await renderer.flush();
    expect(text).toContain("Moved a.txt to b.txt.");
  });

  it("leaves a request to the prompt that asks it at the terminal, and says the answer once", async () => {
    const events: CairnEvent[] = [
      {
        type: "approval.requested",
        request_id: "r1",
        call_id: "c1",
        prompt: {
          tool: "move_file",
          permission: "write",
          summary: "move_file a.txt → b.txt",
          dangers: [],
          network: false,
        },
        options: ["once", "deny"],
      },
      { type: "approval.resolved", request_id: "r1", choice: "once" },
    ];
    const validation: CairnEvent = {
      type: "validation",
      ran: true,
      passed: true,
      summary: "ok",
      checks: [{ name: "test", command: "npm test", passed: true, duration_ms: 1200, source: "project" }],
    };
    // Everything else is said as ever.
    expect(await render([...events, validation], false, undefined, true)).toEqual([
      "allowed once",
      "✓ npm test 1.2s",
    ]);
    // In a log nobody answers at, the request is said.
    expect(await render(events)).toEqual(["asks: allow move_file a.txt → b.txt?", "allowed once"]);
  });

  it("shows a call with nothing to name by its tool alone, never its raw arguments", async () => {
    const lines = await render([
      {
        type: "tool.call",
        call_id: "1",
        tool: "todo_write",
        kind: "think",
        title: "todo_write",
        args: { todos: [] },
        permission: "read",
      },
      {
        type: "tool.call",
        call_id: "2",
        tool: "mcp__x",
        kind: "other",
        title: "mcp__x",
        args: { path: "a.ts" },
        permission: null,
      },
    ]);
    expect(lines).toEqual(["● todo_write", "● mcp__x"]);
  });

  it("marks a command that ran and failed with ✗, not a green tick", async () => {
    const command = (call_id: string, exit_code: number) => ({
      type: "tool.result" as const,
      call_id,
      tool: "run_command",
      ok: true,
      output: `Exit code ${exit_code}`,
      data: {
        kind: "command" as const,
        exit_code,
        signal: null,
        timed_out: false,
        cancelled: false,
        duration_ms: 5,
        output_bytes: 11,
        output_truncated: false,
      },
      duration_ms: 5,
    });
    const lines = await render([command("1", 1), command("2", 0)]);
    expect(lines).toEqual(["  ✗ Exit code 1 5ms", "  ✓ Exit code 0 5ms"]);
  });

  it("with --verbose, also shows status changes, each model call, reasoning, arguments and more output", async () => {
    const events: CairnEvent[] = [
      { type: "status", status: "thinking" },
      { type: "reasoning", text: "The test runs sum; check it first." },
      {
        type: "usage",
        phase: "execution",
        model: "openai/gpt-4o",
        input_tokens: 1200,
        output_tokens: 40,
        cached_input_tokens: 1000,
        cache_write_tokens: 0,
        reasoning_tokens: 0,
        cost_usd: 0.0021,
        duration_ms: 1500,
        tokens_per_second: 20,
      },
      {
        type: "tool.call",
        call_id: "1",
        tool: "run_command",
        kind: "execute",
        title: "npm test",
        args: { command: "npm test" },
        permission: "exec",
      },
      {
        type: "tool.result",
        call_id: "1",
        tool: "run_command",
        ok: true,
        output: "exit 1\nFAIL sum\nexpected 3",
        duration_ms: 9,
      },
    ];
    const quiet = await render(events);
    expect(quiet.join("\n")).not.toMatch(/thinking|FAIL sum|gpt-4o|check it first/);
    const verbose = (await render(events, true)).join("\n");
    expect(verbose).toContain("… thinking");
    expect(verbose).toContain("┊ The test runs sum; check it first.");
    expect(verbose).toMatch(
      /· openai\/gpt-4o \(execution\) 1\.5s · usage: 1,200 in \(1,000 cached\) · 40 out · 20\.0 tok\/s · \$0\.0021/,
    );
    expect(verbose).toContain('{"command":"npm test"}');
    expect(verbose).toContain("    FAIL sum\n    expected 3");
  });

  it("says a local model is still reading its prompt, and how many requests were cut to fit its window", async () => {
    const cut = { ...usage(9_000, 10, 0), cut_to_fit: true, context_tokens: 8_192 } as CairnEvent;
    const lines = await render([
      { type: "status", status: "thinking" },
      { type: "status", status: "thinking", detail: "reading the prompt (12,345 tokens)" },
      { type: "status", status: "thinking" },
      cut,
      cut,
      usage(100, 10, 0),
      finished("completed"),
    ]);
    expect(lines[0]).toBe("… thinking: reading the prompt (12,345 tokens)");
    expect(lines.filter((line) => line.startsWith("…"))).toHaveLength(1);
    expect(lines.at(-1)).toMatch(/^completed · 2 requests cut to fit the context window · /);
  });
});
