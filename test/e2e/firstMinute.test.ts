import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ANSWER_QUIET_MS } from "../../src/ui/tui/keyGuard.js";
import { EXIT_UNCHECKED, makeHome, makeRepo, modelFlags } from "../helpers/cli.js";
import { startScriptedServer } from "../support/scriptedServer.js";
import { closedAfterEach, hasTmux, Terminal } from "./tmux.js";

const open = closedAfterEach();

describe.skipIf(!hasTmux)("the first minute in the terminal, at 80×24", () => {
  it("an approval ignores keys typed ahead of it and waits for a keypress made while it shows", async () => {
    const [repo, home] = await Promise.all([makeRepo({ "package.json": "{}\n" }), makeHome()]);
    open.server = await startScriptedServer([
      { toolCalls: [{ name: "run_command", args: { command: "touch ran.txt" } }] },
      { text: "Ran it." },
    ]);
    const { args, env } = modelFlags("openai", open.server);
    open.terminal = Terminal.start({ args: ["chat", ...args, "--approval", "ask"], cwd: repo, home, env });
    const t = open.terminal;
    await t.waitFor("Ask cairn");
    t.type("run it");
    t.press("Enter");
    await new Promise((resolve) => setTimeout(resolve, 150));
    // Typing on, as people do, as the approval appears: "w" is "always in this workspace", "n" is no.
    await t.waitFor("Allow run_command");
    for (const key of "wn") t.type(key);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(t.screen()).toContain("Allow run_command");
    expect(existsSync(path.join(repo, ".cairn", "config.yaml"))).toBe(false);
    expect(existsSync(path.join(repo, "ran.txt"))).toBe(false);
    // A keypress made once the approval has shown, and the keyboard been still, a moment answers it.
    await new Promise((resolve) => setTimeout(resolve, ANSWER_QUIET_MS));
    t.press("y");
    await t.waitFor("Ran it.");
    expect(existsSync(path.join(repo, "ran.txt"))).toBe(true);
    expect(existsSync(path.join(repo, ".cairn", "config.yaml"))).toBe(false);
  });

  it("cairn do's approval prompt ignores keys typed ahead of it, fits 80 columns, and takes no bare Enter", async () => {
    const [repo, home] = await Promise.all([makeRepo({ "package.json": "{}\n" }), makeHome()]);
    open.server = await startScriptedServer([
      // The model takes its time, as a real one does: long enough to type ahead.
      { toolCalls: [{ name: "run_command", args: { command: "touch ran.txt" } }], delayMs: 1500 },
      { text: "Ran it." },
    ]);
    const { args, env } = modelFlags("openai", open.server);
    open.terminal = Terminal.start({
      args: ["do", "run the tests", ...args, "--approval", "ask"],
      cwd: repo,
      home,
      env,
    });
    const t = open.terminal;
    // Typed before the prompt shows: "w" is "always in this workspace", Enter sends it.
    await new Promise((resolve) => setTimeout(resolve, 700));
    t.type("w");
    t.press("Enter");
    const screen = await t.waitFor("Allow run_command");
    // And typed on as it appears, within the guard time.
    t.type("s");
    t.press("Enter");
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(existsSync(path.join(repo, ".cairn", "config.yaml"))).toBe(false);
    expect(existsSync(path.join(repo, "ran.txt"))).toBe(false);
    // The choices are laid out within the 80 columns: none is cut by the terminal's wrapping.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const choices = t
      .screen()
      .split("\n")
      .filter((line) => /\[[yswn]\]/.test(line));
    expect(choices.join("\n")).toMatch(/\[n\] no, and say why/);
    for (const line of choices) expect(line.length).toBeLessThan(80);
    expect(screen).not.toMatch(/say\s*\n\s*why|an\s*\nd say/);
    // A bare Enter, made while it shows, is not a yes: it asks again.
    t.press("Enter");
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(existsSync(path.join(repo, "ran.txt"))).toBe(false);
    // A key typed while it shows, after the guard time, answers it.
    t.type("y");
    t.press("Enter");
    await t.waitFor("Ran it.");
    // ran.txt, which the approved command made, is the do's change: unchecked.
    expect(await t.exited()).toBe(EXIT_UNCHECKED);
    expect(existsSync(path.join(repo, "ran.txt"))).toBe(true);
    expect(existsSync(path.join(repo, ".cairn", "config.yaml"))).toBe(false);
  });

  it("a question ignores text and Enter typed ahead of it, and takes the answer typed while it shows", async () => {
    const [repo, home] = await Promise.all([makeRepo({ "package.json": "{}\n" }), makeHome()]);
    open.server = await startScriptedServer([
      { toolCalls: [{ name: "ask_user", args: { question: "Which port should it listen on?" } }] },
      { text: "Listening on the port you gave." },
    ]);
    const { args, env } = modelFlags("openai", open.server);
    open.terminal = Terminal.start({ args: ["chat", ...args], cwd: repo, home, env });
    const t = open.terminal;
    await t.waitFor("Ask cairn");
    t.type("set up the server");
    t.press("Enter");
    // Typing on, as people do, as the question appears: it is not the answer, nor is its Enter.
    await t.waitFor("Which port should it listen on?");
    t.type("and log it");
    t.press("Enter");
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(t.screen()).toContain("cairn asks");
    expect(open.server.requests).toHaveLength(1);
    // Typed once it has shown, and the keyboard been still, a moment, it is the answer.
    await new Promise((resolve) => setTimeout(resolve, ANSWER_QUIET_MS));
    t.type("8080");
    t.press("Enter");
    await t.waitFor("Listening on the port you gave.");
    const answer = JSON.stringify(open.server.requests[1]?.body.messages.at(-1));
    expect(answer).toContain("The user answered: 8080");
    expect(answer).not.toContain("log it");
  });

  it("the approval of a long edit pages through its diff with PgDn and PgUp", async () => {
    const [repo, home] = await Promise.all([makeRepo({ "package.json": "{}\n" }), makeHome()]);
    const content = Array.from({ length: 60 }, (_, i) => `line ${String(i + 1).padStart(2, "0")}`).join("\n");
    open.server = await startScriptedServer([
      { toolCalls: [{ name: "write_file", args: { path: "long.txt", content: `${content}\n` } }] },
      { text: "Wrote it." },
    ]);
    const { args, env } = modelFlags("openai", open.server);
    open.terminal = Terminal.start({ args: ["chat", ...args, "--approval", "ask"], cwd: repo, home, env });
    const t = open.terminal;
    await t.waitFor("Ask cairn");
    t.type("write the long file");
    t.press("Enter");
    const first = await t.waitFor("PgDn to read on");
    expect(first).toContain("line 01");
    expect(first).not.toContain("line 30");
    // After the guard time, PgDn shows lines further down, and PgUp goes back.
    const lastShown = (screen: string) =>
      Math.max(...[...screen.matchAll(/line (\d\d)/g)].map((m) => Number(m[1])));
    await new Promise((resolve) => setTimeout(resolve, 600));
    t.press("NPage");
    const next = await t.waitFor(/lines? above \(PgUp\)/);
    expect(next).not.toContain("line 01");
    expect(lastShown(next)).toBeGreaterThan(lastShown(first));
    // On to the end of the diff, a page at a time, and back to its start.
    const page = async (key: string, until: string) => {
      for (let i = 0; i < 20 && !t.screen().includes(until); i++) {
        t.press(key);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return t.waitFor(until, { timeoutMs: 1000 });
    };
    expect(await page("NPage", "line 60")).not.toContain("PgDn to read on");
    expect(await page("PPage", "line 01")).not.toContain("(PgUp)");
    expect(existsSync(path.join(repo, "long.txt"))).toBe(false);
    t.press("y");
    await t.waitFor("Wrote it.");
    expect(existsSync(path.join(repo, "long.txt"))).toBe(true);
  });

  it("a 3,000-word paragraph streams without flooding the scrollback", async () => {
    const [repo, home] = await Promise.all([makeRepo({}), makeHome()]);
    const words = Array.from({ length: 3000 }, (_, i) => `w${i}`);
    const paragraph = `START-OF-PARAGRAPH ${words.join(" ")} END-OF-PARAGRAPH`;
    // Streamed at a model's pace: a frame at a time, as the flood happened.
    open.server = await startScriptedServer([{ text: paragraph, pace: { pieces: 60, everyMs: 40 } }]);
    const { args, env } = modelFlags("openai", open.server);
    open.terminal = Terminal.start({ args: ["chat", ...args], cwd: repo, home, env });
    const t = open.terminal;
    await t.waitFor("Ask cairn");
    t.type("tell me a long story");
    t.press("Enter");
    const history = await t.waitFor(/END-OF-PARAGRAPH\s+● ready/, { inHistory: true });
    // The person's own message is still in the terminal's history, and the answer is there once.
    expect(history).toContain("tell me a long story");
    expect(history.match(/START-OF-PARAGRAPH/g)).toHaveLength(1);
    expect(history.match(/w2999 END-OF-PARAGRAPH/g)).toHaveLength(1);
    expect(history.match(/w1500 /g)).toHaveLength(1);
  });

  it("NO_COLOR=1 leaves cairn do's Markdown answer without colour, laid out all the same", async () => {
    const [repo, home] = await Promise.all([makeRepo({}), makeHome()]);
    open.server = await startScriptedServer([
      { text: "# Done\n\n**Bold** words and `code`:\n\n- one\n- two\n" },
    ]);
    const { args, env } = modelFlags("openai", open.server);
    open.terminal = Terminal.start({
      args: ["do", "say it", ...args],
      cwd: repo,
      home,
      env: { ...env, NO_COLOR: "1" },
    });
    await open.terminal.exited();
    const screen = open.terminal.screen({ escapes: true });
    expect(screen).toContain("Bold words and code");
    expect(screen).toMatch(/one\n.*two/);
    expect(screen).not.toMatch(/\x1b\[[0-9;]*m/);
  });

  it("/help, /sessions and /cost fit 80 columns, even with a long model id", async () => {
    const [repo, home] = await Promise.all([makeRepo({}), makeHome()]);
    open.server = await startScriptedServer([{ text: "Done." }]);
    const longModel = "openai-compatible/a-very-long-model-name-served-by-a-local-open.server-q4";
    open.terminal = Terminal.start({
      args: ["--model", longModel, "--base-url", open.server.openaiBaseUrl],
      cwd: repo,
      home,
    });
    const t = open.terminal;
    await t.waitFor("Ask cairn");
    t.type("do something for a while, with a long description of what is to be done");
    t.press("Enter");
    await t.waitFor("Done.");
    for (const command of ["/help", "/sessions", "/cost"]) {
      t.type(command);
      t.press("Enter");
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
    const history = await t.waitFor(/total\s+1\s/, { inHistory: true });
    // What a command printed: the lines after it, up to the status line or the next prompt.
    const block = (command: string) => {
      const lines = history.split("\n");
      const from = lines.findIndex((line) => line.startsWith(`› ${command}`));
      const to = lines.findIndex((line, i) => i > from && /^(› |● |╭)/.test(line));
      return lines.slice(from + 1, to).filter((line) => line.trim());
    };
    // A line the terminal wrapped would start at the left edge, off its column.
    expect(block("/help").filter((line) => !/^( {2}|help$|Commands:|Keys:)/.test(line))).toEqual([]);
    expect(block("/sessions").filter((line) => !/^(sessions|id |\d{8}-|\/resume)/.test(line))).toEqual([]);
    expect(
      block("/cost").filter(
        (line) => !/^(cost|phase |model |execution |total |openai-compatible\/)/.test(line),
      ),
    ).toEqual([]);
  });
});
