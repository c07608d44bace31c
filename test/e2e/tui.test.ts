import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { Store } from "../../src/store/sessions.js";
import { ANSWER_QUIET_MS } from "../../src/ui/tui/keyGuard.js";
import { makeHome, makeRepo, modelFlags, runCairn } from "../helpers/cli.js";
import { startScriptedServer } from "../support/scriptedServer.js";
import { closedAfterEach, hasTmux, Terminal } from "./tmux.js";

const BUGGY = "export function add(a, b) {\n  return a - b;\n}\n";
const FIXED = "export function add(a, b) {\n  return a + b;\n}\n";

const todos = (second: "in_progress" | "completed") => ({
  name: "todo_write",
  args: {
    todos: [
      { id: "1", content: "Read math.js", status: "completed" },
      { id: "2", content: "Fix add()", status: second },
    ],
  },
});

const open = closedAfterEach();

describe.skipIf(!hasTmux)("cairn in a terminal", () => {
  it("fixes a bug with an approved edit, shows the diff and TODOs, costs, undoes, is interrupted, and exits saved", async () => {
    const repo = await makeRepo({ "math.js": BUGGY });
    const home = await makeHome();
    open.server = await startScriptedServer([
      { text: "I'll fix it.", toolCalls: [todos("in_progress")] },
      {
        toolCalls: [
          { name: "edit_file", args: { path: "math.js", old_string: "a - b", new_string: "a + b" } },
        ],
      },
      { toolCalls: [todos("completed")] },
      { text: "Fixed `add` in **math.js**: it subtracted.", usage: { input: 1200, output: 20 } },
      { hang: true },
      { text: "Back at it." },
    ]);
    const { args, env } = modelFlags("openai", open.server);
    open.terminal = Terminal.start({ args: ["chat", ...args, "--approval", "ask"], cwd: repo, home, env });
    const t = open.terminal;

    await t.waitFor("Ask cairn");
    t.type("fix add in math.js");
    t.press("Enter");

    // The edit waits for approval, with the plan on the TODO panel.
    let screen = await t.waitFor("Allow edit_file");
    // A key is taken only once the approval has been on screen, and the keyboard still, a moment.
    await new Promise((resolve) => setTimeout(resolve, ANSWER_QUIET_MS));
    expect(screen).toContain("+a + b");
    expect(screen).toMatch(/TODO 1\/2[\s\S]*✓ Read math\.js[\s\S]*▸ Fix add\(\)/);
    t.press("y");

    // The edit was made and nothing checked it (the chat has no --verify): unverified.
    screen = await t.waitFor("unverified · 1 file changed", { inHistory: true });
    expect(screen).toContain("-  return a - b;");
    expect(screen).toContain("+  return a + b;");
    expect(screen).toMatch(/TODO 2\/2[\s\S]*✓ Fix add\(\)/);
    expect(screen).toContain("it subtracted.");
    expect(await readFile(path.join(repo, "math.js"), "utf8")).toBe(FIXED);

    t.type("/cost");
    t.press("Enter");
    screen = await t.waitFor(/model\s+calls[\s\S]*openai\/gpt-4o/);
    expect(screen).toMatch(/execution\s+4\s/);

    t.type("/undo");
    t.press("Enter");
    await t.waitFor(/restored\s+math\.js/);
    expect(await readFile(path.join(repo, "math.js"), "utf8")).toBe(BUGGY);

    // Esc stops the work and the chat goes on; the model hears about it with the next message.
    t.type("take your time");
    t.press("Enter");
    await t.waitFor("thinking");
    t.press("Escape");
    await t.waitFor(/cancelled[\s\S]*ready/);
    t.type("go on");
    t.press("Enter");
    await t.waitFor("Back at it.");
    expect(open.server.requests.at(-1)?.rawBody).toContain("The user interrupted what you were doing");
    expect(open.server.requests.at(-1)?.rawBody).toContain("The user undid file changes");

    t.press("C-c");
    await t.waitFor("Ctrl-C again to exit");
    t.press("C-c");
    screen = await t.waitFor(/Saved as (\S+) · cairn -c continues it/);
    const id = /Saved as (\S+) ·/.exec(screen)?.[1] ?? "";
    expect(await t.exited()).toBe(0);

    const store = Store.open(path.join(home, "data", "cairn", "cairn.db"));
    try {
      const session = store.requireSession(id);
      expect(session).toMatchObject({ mode: "chat", task: "fix add in math.js" });
      // One session, one turn a message: it starts once, each message is its own turn.
      const events = store.events(id);
      expect(events.filter((e) => e.type === "session.started")).toHaveLength(1);
      const inputs = events.flatMap((e) => (e.type === "turn.started" ? [e.input] : []));
      expect(inputs).toEqual(["fix add in math.js", "take your time", "go on"]);
    } finally {
      store.close();
    }
  });

  it("says what exists for an unknown command, lays out again when resized, and keeps the prompt history", async () => {
    const repo = await makeRepo({ "a.txt": "x\n" });
    const home = await makeHome();
    open.server = await startScriptedServer([]);
    const { args, env } = modelFlags("openai", open.server);
    const start = () =>
      Terminal.start({ args: ["chat", ...args], cwd: repo, home, env, columns: 120, rows: 30 });
    open.terminal = start();
    let t = open.terminal;
    await t.waitFor("Ask cairn");
    t.type("/frobnicate");
    t.press("Enter");
    await t.waitFor(/Unknown command \/frobnicate\.[\s\S]*\/help[\s\S]*\/undo/);

    t.resize(60, 20);
    // Once the drag has settled the screen is drawn again: the transcript at the new width, then
    // one frame. Until then the terminal's own rewrap of the old frame is there too.
    const redrawn = /^(?![\s\S]*╭─[\s\S]*╭─)[\s\S]*Unknown command \/frobnicate[\s\S]*\n╰─{58}╯\n/;
    await t.waitFor(redrawn, { inHistory: true });
    const screen = t.screen();
    for (const line of screen.split("\n")) expect(line.length).toBeLessThanOrEqual(60);
    expect(screen.match(/╭─+╮/g)).toHaveLength(1);
    // No piece of the frame drawn at 120 columns is left, on the screen or above it; the
    // transcript is there once.
    const all = t.history();
    expect(all.match(/╭─/g)).toHaveLength(1);
    expect(all.match(/● ready/g)).toHaveLength(1);
    expect(all.match(/Unknown command \/frobnicate/g)).toHaveLength(1);
    t.press("C-c", "C-c");
    // Nothing was said to the model: no session was recorded, so none is named to continue.
    expect(await t.exited()).toBe(0);
    expect(t.history()).not.toContain("cairn -c continues it");
    t.close();

    open.terminal = start();
    t = open.terminal;
    await t.waitFor("Ask cairn");
    t.press("Up");
    await t.waitFor("› /frobnicate");
  });
});

describe("cairn without a terminal", () => {
  it("chats with the line renderer, and `cairn` alone prints the help", async () => {
    const repo = await makeRepo({});
    const home = await makeHome();
    open.server = await startScriptedServer([]);
    const { args, env } = modelFlags("openai", open.server);
    const chat = await runCairn(["chat", ...args, "--cwd", repo], { home, env, input: "hello\n" });
    expect(chat.code, chat.stderr).toBe(0);
    expect(chat.stdout).toContain("Hello! Tell me what to do");
    expect(chat.stdout).not.toMatch(/\x1b\[/);
    const bare = await runCairn([], { home });
    expect(bare.stdout + bare.stderr).toContain("Usage: cairn");
  });
});
