import { render } from "ink-testing-library";
import { afterEach, describe, expect, it } from "vitest";
import { emptyUsage } from "../../../src/model/usage.js";
import type { ApprovalAnswer, ApprovalPrompt } from "../../../src/safety/approval.js";
import { liveRows } from "../../../src/ui/tui/App.js";
import { ApprovalPanel } from "../../../src/ui/tui/Approval.js";
import {
  AgentLine,
  ColorContext,
  DiffView,
  StatusLine,
  TodoPanel,
  ToolLine,
} from "../../../src/ui/tui/components.js";
import { PromptHistory } from "../../../src/ui/tui/history.js";
import { Prompt } from "../../../src/ui/tui/Prompt.js";
import type { ToolView } from "../../../src/ui/tui/state.js";
import { EDIT_DIFF } from "./events.js";

const tick = (ms = 30) => new Promise((resolve) => setTimeout(resolve, ms));
const ENTER = "\r";
const UP = "\x1b[A";
const TAB = "\t";

let unmounts: Array<() => void> = [];
afterEach(() => {
  for (const unmount of unmounts) unmount();
  unmounts = [];
});

function mount(tree: Parameters<typeof render>[0]) {
  const view = render(tree);
  unmounts.push(view.unmount);
  return view;
}

async function type(stdin: { write(data: string): void }, ...keys: string[]) {
  for (const key of keys) {
    stdin.write(key);
    await tick();
  }
}

describe("the prompt", () => {
  function prompt(options: { entries?: string[]; suggest?: Parameters<typeof Prompt>[0]["suggest"] } = {}) {
    const sent: string[] = [];
    const history = new PromptHistory(options.entries ?? []);
    const view = mount(
      <Prompt
        active
        history={history}
        suggest={options.suggest ?? (() => [])}
        onSubmit={(text) => sent.push(text)}
        maxLines={5}
        placeholder="Ask cairn"
      />,
    );
    return { ...view, sent, history };
  }

  it("sends what was typed on Enter and keeps it in the history", async () => {
    const { stdin, sent, history, lastFrame } = prompt();
    await type(stdin, "fix the bug");
    expect(lastFrame()).toContain("fix the bug");
    await type(stdin, ENTER);
    expect(sent).toEqual(["fix the bug"]);
    expect(history.entries).toEqual(["fix the bug"]);
    expect(lastFrame()).not.toContain("fix the bug");
  });

  it("takes several lines: a backslash before Enter, or Ctrl-J, starts a new one", async () => {
    const { stdin, sent, lastFrame } = prompt();
    await type(stdin, "first\\", ENTER, "second", "\n", "third");
    expect(lastFrame()).toMatch(/first[^\n]*\n[^\n]*second[^\n]*\n[^\n]*third/);
    await type(stdin, ENTER);
    expect(sent).toEqual(["first\nsecond\nthird"]);
  });

  it("takes keys that arrive together one by one, as typed: Backspaces, Enters, the first burst's line feed", async () => {
    const { stdin, sent, lastFrame } = prompt();
    // What was typed while the UI started, where the terminal's line mode made Enter a line feed.
    await type(stdin, "hello from the start\n");
    expect(sent).toEqual(["hello from the start"]);
    await type(stdin, "abcdef\x7f\x7f\x7f");
    expect(lastFrame()).toContain("› abc");
    expect(lastFrame()).not.toContain("abcd");
    await type(stdin, "\rone\rtwo\r");
    expect(sent).toEqual(["hello from the start", "abc", "one", "two"]);
    // After the first burst, a line feed is Ctrl-J: a new line.
    await type(stdin, "x\ny", ENTER);
    expect(sent.at(-1)).toBe("x\ny");
  });

  it("says what was left unsent when it goes away", async () => {
    const left: string[] = [];
    const view = render(
      <Prompt
        active
        history={new PromptHistory()}
        suggest={() => []}
        onSubmit={() => {}}
        onUnsent={(text) => left.push(text)}
        maxLines={5}
        placeholder=""
      />,
    );
    await type(view.stdin, "half a thought");
    view.unmount();
    expect(left).toEqual(["half a thought"]);
  });

  it("brings back earlier prompts with the up arrow", async () => {
    const { stdin, sent } = prompt({ entries: ["older", "newer"] });
    await type(stdin, UP, UP, ENTER);
    expect(sent).toEqual(["older"]);
  });

  it("keeps a large paste whole behind a placeholder", async () => {
    const { stdin, sent, lastFrame } = prompt();
    const pasted = Array.from({ length: 40 }, (_, i) => `line ${i}`).join("\n");
    await type(stdin, "look at this: ", `\x1b[200~${pasted}\x1b[201~`);
    expect(lastFrame()).toContain("[Pasted text #1, 40 lines]");
    expect(lastFrame()).not.toContain("line 39");
    await type(stdin, ENTER);
    expect(sent).toEqual([`look at this: ${pasted}`]);
  });

  it("draws the cursor as a bar when there is no colour", async () => {
    const { stdin, lastFrame } = mount(
      <ColorContext value={false}>
        <Prompt
          active
          history={new PromptHistory()}
          suggest={() => []}
          onSubmit={() => {}}
          maxLines={5}
          placeholder=""
        />
      </ColorContext>,
    );
    await type(stdin, "abc", "\x1b[D");
    expect(lastFrame()).toContain("› ab▏c");
  });

  it("completes the word at the cursor with Tab", async () => {
    const { stdin, sent, lastFrame } = prompt({
      suggest: ({ text }) => (text.endsWith("@ma") ? [{ value: "@math.js" }, { value: "@src/main.ts" }] : []),
    });
    await type(stdin, "explain @ma");
    expect(lastFrame()).toContain("› @math.js");
    expect(lastFrame()).toContain("@src/main.ts");
    await type(stdin, TAB, "please", ENTER);
    expect(sent).toEqual(["explain @math.js please"]);
  });
});

describe("a tool call line", () => {
  const toolLine = (call: ToolView) => mount(<ToolLine call={call} />).lastFrame() ?? "";

  it("is one line while running, and says how it went when done", () => {
    const running = {
      callId: "1",
      tool: "read_file",
      title: "read_file src/a.ts",
      args: { path: "src/a.ts" },
      permission: "read" as const,
    };
    expect(toolLine(running)).toBe("◌ read_file src/a.ts");
    const done = { ...running, ok: true, output: "1\ta\n2\tb\n3\tc", durationMs: 4 };
    expect(toolLine(done)).toBe("● read_file src/a.ts  3 lines · 4ms");
  });

  it("draws a call by the title its event carries, never by its arguments", () => {
    const call = (tool: string, title: string): ToolView => ({
      callId: "1",
      tool,
      title,
      args: { anything: "here" },
      permission: "write",
    });
    expect(toolLine(call("move_file", "move_file a.ts → b/a.ts"))).toBe("◌ move_file a.ts → b/a.ts");
    expect(toolLine(call("mcp__unknown", "mcp__unknown"))).toBe("◌ mcp__unknown");
  });

  it("measures what a read returns, but not a message such as an answer", () => {
    const read = (tool: string, message: boolean): ToolView => ({
      callId: "1",
      tool,
      title: `${tool} Which one?`,
      args: { question: "Which one?" },
      permission: "read",
      ok: true,
      output: "The user answered: the first\nand only",
      durationMs: 4,
      ...(message ? { message } : {}),
    });
    expect(toolLine(read("ask_user", true))).toBe("● ask_user Which one?  4ms");
    expect(toolLine(read("ask_user", false))).toBe("● ask_user Which one?  2 lines · 4ms");
  });

  it("shows the first line of a failure", () => {
    const call = {
      callId: "1",
      tool: "edit_file",
      title: "edit_file a.js",
      args: { path: "a.js", old_string: "x", new_string: "y" },
      permission: "write" as const,
      ok: false,
      output: "old_string was not found in a.js.\nThe closest text is …",
      durationMs: 2,
    };
    expect(toolLine(call).split("\n")).toEqual([
      "✗ edit_file a.js  2ms",
      "  ⎿ old_string was not found in a.js.",
    ]);
  });

  it("keeps the end of a command's output", () => {
    const output = [
      "Exit code 1 after 80 ms.",
      ...Array.from({ length: 30 }, (_, i) => `test ${i + 1} ok`),
      "FAIL 1",
    ];
    const call = {
      callId: "1",
      tool: "run_command",
      title: "run_command npm test",
      args: { command: "npm test" },
      permission: "exec" as const,
      ok: true,
      exitCode: 1,
      output: output.join("\n"),
      durationMs: 80,
    };
    const lines = toolLine(call).split("\n");
    expect(lines[0]).toBe("● run_command npm test  exit 1 · 80ms");
    expect(lines[1]).toContain("27 lines above");
    expect(lines.slice(2).map((l) => l.trim())).toEqual(["test 28 ok", "test 29 ok", "test 30 ok", "FAIL 1"]);
  });
});

describe("a diff", () => {
  it("shows the hunks without the file headers", () => {
    const frame = mount(<DiffView diff={EDIT_DIFF} maxLines={20} />).lastFrame() ?? "";
    expect(frame.split("\n").map((l) => l.trimEnd())).toEqual([
      "    @@ -1,3 +1,3 @@",
      "     export function add(a, b) {",
      "    -  return a - b;",
      "    +  return a + b;",
      "     }",
    ]);
  });

  it("is cut at its limit, saying how much is left", () => {
    const frame = mount(<DiffView diff={EDIT_DIFF} maxLines={2} />).lastFrame() ?? "";
    expect(frame).toContain("… 3 more lines");
    expect(frame).not.toContain("+  return");
  });
});

describe("the TODO panel", () => {
  const todos = [
    { id: "1", content: "Read the failing test", status: "completed" as const },
    { id: "2", content: "Fix parse()", status: "in_progress" as const },
    { id: "3", content: "Run the tests", status: "pending" as const },
  ];

  it("shows each step with its state and the count done", () => {
    expect(mount(<TodoPanel todos={todos} />).lastFrame()).toBe(
      "TODO 1/3\n ✓ Read the failing test\n ▸ Fix parse()\n ○ Run the tests",
    );
  });

  it("shows a window around the current step of a long list", () => {
    const many = Array.from({ length: 20 }, (_, i) => ({
      id: String(i),
      content: `step ${i}`,
      status: (i < 10 ? "completed" : i === 10 ? "in_progress" : "pending") as
        | "completed"
        | "in_progress"
        | "pending",
    }));
    const frame = mount(<TodoPanel todos={many} maxLines={4} />).lastFrame() ?? "";
    expect(frame).toContain("… 9 done above");
    expect(frame).toContain("▸ step 10");
    expect(frame).toContain("… 7 more");
    expect(frame).not.toContain("step 3");
  });

  it("is not drawn without TODOs", () => {
    expect(mount(<TodoPanel todos={[]} />).lastFrame()).toBe("");
  });
});

describe("an approval prompt", () => {
  const request: ApprovalPrompt = {
    tool: "edit_file",
    permission: "write",
    summary: "edit_file math.js",
    dangers: [],
    network: false,
    always: ["edit_file"],
    change: { path: "math.js", old_text: "a - b", new_text: "a + b" },
  };

  function panel(prompt: ApprovalPrompt = request) {
    const answers: ApprovalAnswer[] = [];
    const view = mount(
      // No guard time here: the terminal tests show that keys typed ahead are ignored.
      <ApprovalPanel request={prompt} previewLines={10} onAnswer={(a) => answers.push(a)} quietMs={0} />,
    );
    return { ...view, answers };
  }

  it("shows the change asked for and the choices", () => {
    const frame = panel().lastFrame() ?? "";
    expect(frame).toContain("Allow edit_file math.js?");
    expect(frame).toContain("-a - b");
    expect(frame).toContain("+a + b");
    expect(frame).toMatch(
      /y Yes, this once[\s\S]*s Yes, and allow `edit_file` for this session[\s\S]*n No, and tell cairn why/,
    );
  });

  it("scrolls a long change with PgDn and PgUp, so it can be read in full before it is approved", async () => {
    const lines = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join("\n");
    const { stdin, lastFrame } = panel({
      ...request,
      change: { path: "big.js", old_text: null, new_text: lines },
    });
    expect(lastFrame()).toContain("+line 10");
    expect(lastFrame()).not.toContain("+line 11");
    expect(lastFrame()).toContain("20 more lines (PgDn to read on)");
    await type(stdin, "\x1b[6~", "\x1b[6~", "\x1b[6~", "\x1b[6~");
    expect(lastFrame()).toContain("+line 30");
    expect(lastFrame()).toContain("20 lines above (PgUp)");
    await type(stdin, "\x1b[5~");
    expect(lastFrame()).toContain("+line 12");
  });

  it("answers with one key", async () => {
    const { stdin, answers } = panel();
    await type(stdin, "s");
    expect(answers).toEqual([{ choice: "session" }]);
  });

  it("answers with the arrows and Enter, but Enter alone chooses nothing", async () => {
    const { stdin, answers, lastFrame } = panel();
    await type(stdin, ENTER);
    expect(answers).toEqual([]);
    expect(lastFrame()).toContain("pick with ↑ ↓ and Enter");
    await type(stdin, "\x1b[B", "\x1b[B", ENTER);
    expect(answers).toEqual([{ choice: "session" }]);
  });

  it("takes no answer from keys that come together, or from a paste", async () => {
    const { stdin, answers } = panel();
    await type(stdin, "yy", "\x1b[200~y\x1b[201~");
    expect(answers).toEqual([]);
  });

  it("takes no answer from keys in a stream: each comes before the keyboard has been still", async () => {
    const answers: ApprovalAnswer[] = [];
    // Still for 5 s: however loaded the machine, keys 30 ms apart never leave such a gap.
    const { stdin, lastFrame } = mount(
      <ApprovalPanel request={request} previewLines={10} onAnswer={(a) => answers.push(a)} quietMs={5_000} />,
    );
    for (let i = 0; i < 10; i++) {
      stdin.write("w");
      await tick(30);
    }
    stdin.write("\r");
    await tick();
    expect(answers).toEqual([]);
    expect(lastFrame()).toContain("Keys typed ahead or held down are not taken");
  });

  it("asks why on no, and passes the reason on", async () => {
    const { stdin, answers, lastFrame } = panel();
    await type(stdin, "n");
    expect(lastFrame()).toContain("Why not?");
    await type(stdin, "use the helper in utils.js", ENTER);
    expect(answers).toEqual([{ choice: "deny", reason: "use the helper in utils.js" }]);
  });

  it("offers no 'always' for a dangerous command, and says why it is one", async () => {
    const { stdin, answers, lastFrame } = panel({
      tool: "run_command",
      permission: "exec",
      summary: "run_command rm -rf ../data",
      dangers: ["It deletes files outside the workspace."],
      network: false,
    });
    const frame = lastFrame() ?? "";
    expect(frame).toContain("! It deletes files outside the workspace.");
    expect(frame).not.toContain("allow");
    await type(stdin, "s", "y");
    expect(answers).toEqual([{ choice: "once" }]);
  });
});

describe("the status line", () => {
  const base = {
    usage: { ...emptyUsage(), input_tokens: 12_000, output_tokens: 345, cost_usd: 0.0123, calls: 2 },
    model: "anthropic/claude-sonnet-4-5",
    approval: "ask",
    turnStartedAt: null,
  };

  it("says ready, with the session's tokens and dollars, the model and the approval mode", () => {
    const frame = mount(<StatusLine {...base} status={null} busy={false} />).lastFrame();
    expect(frame).toBe("● ready · 12k tokens · $0.01 · anthropic/claude-sonnet-4-5 · approval: ask");
  });

  it("says what is happening and for how long", () => {
    const since = Date.now() - 3_200;
    const frame = mount(
      <StatusLine {...base} status={{ status: "validating", since }} busy turnStartedAt={since} />,
    ).lastFrame();
    expect(frame).toMatch(
      /^. validating 3\.\ds · 12k tokens · \$0\.01 · anthropic\/claude-sonnet-4-5 · approval: ask/,
    );
  });

  it("fits 80 columns whole, shortening what it says before cutting any of it", () => {
    const since = Date.now() - 12_300;
    const frame = mount(
      <StatusLine
        {...base}
        model="openrouter/google/gemini-3.5-flash"
        approval="auto-edit"
        notice="2 queued"
        status={{ status: "running_tools", since }}
        busy
        turnStartedAt={since}
        width={80}
      />,
    ).lastFrame();
    expect(frame).not.toContain("…");
    expect(frame?.length).toBeLessThanOrEqual(80);
    // The model is what goes when all of it cannot stay: the spending and the approval mode stay.
    expect(frame).toMatch(/^. running tools 12\.\ds · 2 queued · 12k tokens · \$0\.01 · auto-edit$/);
    const ready = mount(
      <StatusLine
        {...base}
        model="openrouter/google/gemini-3.5-flash"
        approval="auto-edit"
        status={null}
        busy={false}
        width={80}
      />,
    ).lastFrame();
    expect(ready).toBe("● ready · 12k tokens · $0.01 · gemini-3.5-flash · approval: auto-edit");
  });

  it("says so when a price is unknown", () => {
    const frame = mount(
      <StatusLine {...base} usage={{ ...base.usage, cost_usd: null }} status={null} busy={false} />,
    ).lastFrame();
    expect(frame).toContain("cost unknown");
  });
});

describe("the live area", () => {
  it.each([24, 30, 50])("fits a %i-row terminal whatever it holds", (rows) => {
    for (const todos of [0, 2, 8, 20])
      for (const running of [0, 3])
        for (const asking of [undefined, 8, 12])
          for (const busy of [true, false]) {
            const budget = liveRows(rows, { busy, todos, running, asking });
            const todoRows = budget.todos ? budget.todos + 2 + (budget.todos < todos ? 2 : 0) : 0;
            const below = asking === undefined ? budget.tail + 1 : asking + budget.body;
            expect(budget.prompt + 5 + running + todoRows + below).toBeLessThanOrEqual(rows);
          }
  });

  it("keeps the TODO list beside an approval in 80×24", () => {
    expect(liveRows(24, { busy: true, todos: 2, running: 1, asking: 8 }).todos).toBe(2);
  });
});

describe("a running agent", () => {
  it("is one line: its id, its job and its model", () => {
    const { lastFrame } = mount(
      <AgentLine
        agent={{ id: "explore#2", task: "Where is parse defined?", model: "openai/gpt-4o", since: 0 }}
      />,
    );
    expect(lastFrame()).toBe("◆ explore#2 Where is parse defined?  openai/gpt-4o");
  });
});
