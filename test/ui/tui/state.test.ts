import { describe, expect, it } from "vitest";
import type { ToolData } from "../../../src/events/types.js";
import { appendStream, emptyStream, TAIL_CHARS, unfinishedText } from "../../../src/ui/tui/blocks.js";
import { coalesce } from "../../../src/ui/tui/feed.js";
import { type Action, initialState, reduce, type TuiState } from "../../../src/ui/tui/state.js";
import { EDIT_DIFF, finished, stamp, started, usage } from "./events.js";

const initial = initialState({ model: "m", approval: "ask", sessionId: "s1", workspace: "/w" });
const run = (...actions: Action[]): TuiState => actions.reduce(reduce, initial);
const kinds = (state: TuiState) => state.transcript.items.map((item) => item.kind);

describe("streamed Markdown blocks", () => {
  it("cuts a block at a blank line and keeps the unfinished rest", () => {
    const { stream, blocks } = appendStream(emptyStream, "# Title\n\nFirst para");
    expect(blocks).toEqual(["# Title"]);
    expect(unfinishedText(stream)).toBe("First para");
  });

  it("keeps a code block whole, blank lines and all, until its fence closes", () => {
    let state = appendStream(emptyStream, "```js\nconst a = 1;\n\nconst b");
    expect(state.blocks).toEqual([]);
    state = appendStream(state.stream, " = 2;\n```\nafter");
    expect(state.blocks).toEqual(["```js\nconst a = 1;\n\nconst b = 2;\n```"]);
    expect(unfinishedText(state.stream)).toBe("after");
  });

  it("gives the same blocks however the text is split into deltas", () => {
    const text = "Intro.\n\n```\nx\n\ny\n```\n\n- a\n- b\n\nEnd.\n";
    const whole = appendStream(emptyStream, text).blocks;
    let stream = emptyStream;
    const pieces: string[] = [];
    for (const ch of text) {
      const next = appendStream(stream, ch);
      stream = next.stream;
      pieces.push(...next.blocks);
    }
    expect(pieces).toEqual(whole);
    expect(whole).toEqual(["Intro.", "```\nx\n\ny\n```", "- a\n- b"]);
    expect(unfinishedText(stream)).toBe("End.\n");
  });

  it("keeps what the live area draws to the end of a long paragraph, and the paragraph whole", () => {
    const words = Array.from({ length: 20_000 }, (_, i) => `w${i}`).join(" ");
    let stream = emptyStream;
    for (const piece of words.match(/[\s\S]{1,4}/g) ?? []) stream = appendStream(stream, piece).stream;
    expect(stream.visible).toBe(true);
    expect(stream.tail.length).toBeLessThanOrEqual(2 * TAIL_CHARS);
    expect(stream.tail.length).toBeGreaterThanOrEqual(TAIL_CHARS);
    expect(words.endsWith(stream.tail)).toBe(true);
    expect(unfinishedText(stream)).toBe(words);
    const ended = appendStream(stream, "\n\nNext");
    expect(ended.blocks).toEqual([words]);
    expect(ended.stream.tail).toBe("Next");
  });

  it("draws nothing for a stream of blank lines", () => {
    const { stream } = appendStream(emptyStream, "\n  \n");
    expect(stream.visible).toBe(false);
  });
});

/** A write_file call on `a` and its result, which changed it. */
const writesA = () => [
  stamp({
    type: "tool.call",
    call_id: "c",
    tool: "write_file",
    kind: "edit",
    title: "write_file a",
    args: { path: "a" },
    permission: "write",
  }),
  stamp({
    type: "tool.result",
    call_id: "c",
    tool: "write_file",
    ok: true,
    output: "ok",
    changed_files: ["a"],
    duration_ms: 1,
  }),
];

describe("the UI state reducer", () => {
  it("shows the message of a turn, then the answer streamed block by block", () => {
    const state = run(
      started("fix the bug"),
      stamp({ type: "status", status: "thinking" }),
      stamp({ type: "message.delta", text: "Done.\n\nThe bug was" }),
    );
    expect(state.busy).toBe(true);
    expect(
      state.transcript.items.map((i) => (i.kind === "markdown" || i.kind === "user" ? i.text : "")),
    ).toEqual(["fix the bug", "Done."]);
    expect(unfinishedText(state.stream)).toBe("The bug was");
    const done = [
      stamp({ type: "message", text: "Done.\n\nThe bug was a typo." }),
      finished("completed"),
    ].reduce(reduce, reduce(state, stamp({ type: "message.delta", text: " a typo." })));
    expect(done.transcript.items.at(-1)).toMatchObject({ kind: "markdown", text: "The bug was a typo." });
    expect(done.busy).toBe(false);
    expect(done.status).toBeNull();
  });

  it("shows what a status says besides itself, timed from when the status began, and the requests cut to fit", () => {
    const state = run(
      started("summarise"),
      stamp({ type: "status", status: "thinking" }, 1_000),
      stamp({ type: "status", status: "thinking", detail: "reading the prompt (9,000 tokens)" }, 4_000),
    );
    expect(state.status).toEqual({
      status: "thinking",
      since: Date.UTC(2026, 10, 22, 12, 0, 1),
      detail: "reading the prompt (9,000 tokens)",
    });
    // The first token: the detail goes, the time goes on.
    const answering = reduce(state, stamp({ type: "status", status: "thinking" }, 60_000));
    expect(answering.status).toEqual({ status: "thinking", since: Date.UTC(2026, 10, 22, 12, 0, 1) });
    const done = [{ ...usage(9_000, 5, 0), cut_to_fit: true } as never, finished("completed")].reduce(
      reduce,
      state,
    );
    expect(done.transcript.items.at(-1)).toMatchObject({
      kind: "line",
      text: expect.stringMatching(/^completed · 1 request cut to fit the context window/),
    });
    expect(done.cutToFit).toBe(0);
  });

  it("shows an answer that was not streamed whole", () => {
    const state = run(started("hi"), stamp({ type: "message", text: "Hello!" }));
    expect(state.transcript.items.at(-1)).toMatchObject({ kind: "markdown", text: "Hello!" });
  });

  it("shows a whole answer after a turn whose answer was streamed (a no-model answer after /do)", () => {
    const state = run(
      started("/do list the files"),
      stamp({ type: "status", status: "thinking" }),
      stamp({ type: "message.delta", text: "Two files." }),
      stamp({ type: "message", text: "Two files." }),
      finished("completed"),
      started("hello"),
      stamp({ type: "route", tier: 0, decision: "chitchat", reason: "a greeting" }),
      stamp({ type: "message", text: "Hello again!" }),
    );
    const texts = state.transcript.items.flatMap((i) => (i.kind === "markdown" ? [i.text] : []));
    expect(texts).toEqual(["Two files.", "Hello again!"]);
  });

  it("keeps a tool call live until its result, then prints it once with its diff", () => {
    const call = stamp({
      type: "tool.call",
      call_id: "c1",
      tool: "edit_file",
      kind: "edit",
      title: "edit_file math.js",
      args: { path: "math.js", old_string: "a - b", new_string: "a + b" },
      permission: "write",
    });
    const live = run(started("fix"), call);
    expect(live.running.map((c) => c.tool)).toEqual(["edit_file"]);
    const done = reduce(
      live,
      stamp({
        type: "tool.result",
        call_id: "c1",
        tool: "edit_file",
        ok: true,
        output: "Edited math.js",
        data: { kind: "file_change", path: "math.js", diff: EDIT_DIFF },
        changed_files: ["math.js"],
        duration_ms: 12,
      }),
    );
    expect(done.running).toEqual([]);
    expect(done.transcript.items.at(-1)).toMatchObject({
      kind: "tool",
      call: { tool: "edit_file", ok: true, diff: EDIT_DIFF },
    });
    expect(done.recentTools).toHaveLength(1);
    expect(done.turnFiles).toEqual(["math.js"]);
  });

  it("reads what it draws from the kind of a result's data", () => {
    const result = (tool: string, data: ToolData) =>
      run(
        started("look"),
        stamp({
          type: "tool.call",
          call_id: "c",
          tool,
          kind: "read",
          title: tool,
          args: {},
          permission: "read",
        }),
        stamp({ type: "tool.result", call_id: "c", tool, ok: true, output: "out", data, duration_ms: 1 }),
      ).recentTools[0];
    const command: ToolData = {
      kind: "command",
      exit_code: 2,
      signal: null,
      timed_out: false,
      cancelled: false,
      duration_ms: 5,
      output_bytes: 3,
      output_truncated: false,
    };
    expect(result("run_command", command)).toMatchObject({ exitCode: 2 });
    expect(result("run_command", { ...command, exit_code: null })).toMatchObject({ exitCode: null });
    expect(result("ask_user", { kind: "answer", answered: true, answer: "yes" })).toMatchObject({
      message: true,
    });
    expect(result("consult", { kind: "advice", available: true })).toMatchObject({ message: true });
    const read = result("read_file", { kind: "file_read", path: "a", offset: 1, lines: 1, total_lines: 1 });
    expect(read).not.toHaveProperty("message");
    expect(read).not.toHaveProperty("exitCode");
    expect(read).not.toHaveProperty("diff");
  });

  it("leaves a TODO update to the panel instead of adding a line for it", () => {
    const state = run(
      started("plan"),
      stamp({
        type: "tool.call",
        call_id: "t",
        tool: "todo_write",
        kind: "think",
        title: "todo_write",
        args: { todos: [] },
        permission: "read",
      }),
      stamp({
        type: "tool.result",
        call_id: "t",
        tool: "todo_write",
        ok: true,
        output: "TODO list",
        data: { kind: "todos", todos: [] },
        duration_ms: 1,
      }),
    );
    expect(kinds(state)).toEqual(["user"]);
    expect(state.recentTools.map((c) => c.tool)).toEqual(["todo_write"]);
  });

  it("adds up tokens and dollars, and an unknown price makes the total unknown", () => {
    const state = run(usage(1000, 50, 0.01), usage(2000, 25, 0.02));
    expect(state.usage.input_tokens + state.usage.output_tokens).toBe(3075);
    expect(state.usage.cost_usd).toBeCloseTo(0.03);
    expect(reduce(state, usage(10, 1, null)).usage.cost_usd).toBeNull();
  });

  it("keeps the TODO list on the panel, and moves it to the transcript when all is done", () => {
    const todos = (status: "pending" | "completed") =>
      stamp({ type: "todos", todos: [{ id: "1", content: "Fix add()", status }] });
    const open = run(started("fix"), todos("pending"), finished("completed"));
    expect(open.todos).toHaveLength(1);
    expect(kinds(open)).not.toContain("todos");
    const closed = run(started("fix"), todos("completed"), finished("completed"));
    expect(closed.todos).toEqual([]);
    expect(kinds(closed)).toContain("todos");
  });

  it("says a message that changed files ended unverified, in the warning tone, without repeating why", () => {
    const state = run(started("fix", 0), ...writesA(), finished("unverified", 1500));
    // Every message of a chat is unchecked without --verify: saying why each time would be noise.
    expect(state.transcript.items.at(-1)).toMatchObject({
      kind: "line",
      text: "unverified · 1 file changed · 1.5s",
      tone: "warn",
    });
    // The next message only answers: no ending line, as for any answer.
    const answered = run(
      started("thanks", 0),
      stamp({ type: "message", text: "Welcome." }),
      finished("completed"),
    );
    expect(answered.transcript.items.at(-1)).toMatchObject({ kind: "markdown", text: "Welcome." });
  });

  it("says how an interrupted turn ended and what it changed", () => {
    const state = run(
      started("fix", 0),
      stamp({ type: "message.delta", text: "Working on" }),
      ...writesA(),
      finished("cancelled", 2500),
    );
    expect(state.transcript.items.at(-1)).toMatchObject({
      kind: "line",
      text: "cancelled · 1 file changed · 2.5s",
      tone: "warn",
    });
    expect(state.transcript.items.some((i) => i.kind === "markdown" && i.text === "Working on")).toBe(true);
  });

  it("forgets printed items, so a long session holds no more than the unprinted ones", () => {
    let state = initial;
    for (let turn = 0; turn < 200; turn++) {
      state = [
        started(`task ${turn}`),
        stamp({ type: "message", text: `answer ${turn}` }),
        finished("completed"),
      ].reduce(reduce, state);
      state = reduce(state, {
        type: "ui.printed",
        key: state.transcript.key,
        count: state.transcript.items.length,
      });
    }
    expect(state.transcript.items).toEqual([]);
    expect(state.transcript.key).toBe(200);
  });

  it("keeps items that arrived after the ones printed", () => {
    const state = run(started("a"), { type: "ui.line", text: "x", tone: "dim" });
    const printed = reduce(state, { type: "ui.printed", key: 0, count: 1 });
    expect(printed.transcript).toMatchObject({ key: 1, items: [{ kind: "line", text: "x" }] });
    expect(reduce(printed, { type: "ui.printed", key: 0, count: 1 })).toBe(printed);
  });

  it("shows a replayed session that was cut off mid-turn as idle", () => {
    const state = run(started("a"), stamp({ type: "status", status: "thinking" }), { type: "ui.replayed" });
    expect(state).toMatchObject({ busy: false, status: null, running: [] });
  });

  it("takes the model from a switch", () => {
    const state = run(stamp({ type: "escalation", from: "a/x", to: "b/y", reason: "switched by the user" }));
    expect(state.model).toBe("b/y");
  });
});

describe("the action feed", () => {
  it("joins adjacent deltas into one, keeping everything else in order", () => {
    const actions = coalesce([
      stamp({ type: "message.delta", text: "a" }),
      stamp({ type: "message.delta", text: "b" }),
      stamp({ type: "status", status: "thinking" }),
      stamp({ type: "message.delta", text: "c" }),
    ]);
    expect(actions.map((a) => (a.type === "message.delta" ? a.text : a.type))).toEqual(["ab", "status", "c"]);
  });
});
