import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ANSWER_QUIET_MS } from "../../src/ui/tui/keyGuard.js";
import { makeHome, makeRepo, modelFlags } from "../helpers/cli.js";
import { startScriptedServer } from "../support/scriptedServer.js";
import { closedAfterEach, hasTmux, Terminal } from "./tmux.js";

const open = closedAfterEach();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const run = (file: string) => ({
  toolCalls: [{ name: "run_command", args: { command: `echo ran > ${file}` } }],
});

describe.skipIf(!hasTmux)("the front door of the terminal UI", () => {
  it("an approval is answered by no key of a stream, a held key or a paste: only by one pressed after a still moment", async () => {
    const [repo, home] = await Promise.all([makeRepo({ "package.json": "{}\n" }), makeHome()]);
    open.server = await startScriptedServer([
      run("one.txt"),
      { text: "Ran one." },
      run("two.txt"),
      { text: "Ran two." },
    ]);
    const { args, env } = modelFlags("openai", open.server);
    open.terminal = Terminal.start({ args: [...args, "--approval", "ask"], cwd: repo, home, env });
    const t = open.terminal;
    await t.waitFor("Ask cairn");
    t.type("run the first");
    t.press("Enter");
    // Twenty "w"s a tenth of a second apart, as the approval appears: "w" is "always in this workspace".
    for (let i = 0; i < 20; i++) {
      t.type("w");
      await sleep(100);
    }
    expect(t.screen()).toContain("Allow run_command");
    // A held key: the terminal repeats it every 30 ms.
    for (let i = 0; i < 30; i++) {
      t.type("s");
      await sleep(30);
    }
    expect(t.screen()).toContain("Keys typed ahead or held down are not taken");
    // Enter alone is no answer, whenever it comes.
    await sleep(ANSWER_QUIET_MS);
    t.press("Enter");
    await sleep(300);
    expect(t.screen()).toContain("Allow run_command");
    expect(existsSync(path.join(repo, "one.txt"))).toBe(false);
    expect(existsSync(path.join(repo, ".cairn", "config.yaml"))).toBe(false);
    await sleep(ANSWER_QUIET_MS);
    t.press("y");
    await t.waitFor("Ran one.");
    expect(existsSync(path.join(repo, "one.txt"))).toBe(true);
    expect(existsSync(path.join(repo, ".cairn", "config.yaml"))).toBe(false);

    // What was typed ahead into the prompt is still there, to keep or clear.
    await t.waitFor(/› w+/);
    t.press("C-u");
    t.type("run the second");
    t.press("Enter");
    await t.waitFor("Allow run_command");
    await sleep(ANSWER_QUIET_MS);
    t.paste("y");
    t.paste("yw", { bracketed: false });
    await sleep(ANSWER_QUIET_MS);
    expect(t.screen()).toContain("Allow run_command");
    expect(existsSync(path.join(repo, "two.txt"))).toBe(false);
    t.press("n");
    await t.waitFor("Why not?");
    t.type("not now");
    t.press("Enter");
    await t.waitFor("Ran two.");
    expect(existsSync(path.join(repo, "two.txt"))).toBe(false);
    expect(open.server.requests.at(-1)?.rawBody).toContain("not now");
  });

  it("takes keys that come at once as typed: a message typed while the UI starts is sent, three Backspaces delete three", async () => {
    const [repo, home] = await Promise.all([makeRepo({}), makeHome()]);
    open.server = await startScriptedServer([{ text: "Heard you early." }, { text: "Heard abc." }]);
    const { args, env } = modelFlags("openai", open.server);
    open.terminal = Terminal.start({ args, cwd: repo, home, env });
    const t = open.terminal;
    // Typed before the UI is drawn.
    t.type("typed while it starts");
    t.press("Enter");
    await t.waitFor("Heard you early.");
    expect(JSON.stringify(open.server.requests[0]?.body.messages)).toContain("typed while it starts");
    // One burst: six letters, three Backspaces, an Enter.
    t.type("abcdef\x7f\x7f\x7f\r");
    await t.waitFor("Heard abc.");
    const sent = JSON.stringify(open.server.requests[1]?.body.messages.at(-1));
    expect(sent).toContain('"abc"');
    expect(sent).not.toContain("abcd");
  });

  it("quits on a second Ctrl-C, keeping what was typed and not sent", async () => {
    const [repo, home] = await Promise.all([makeRepo({}), makeHome()]);
    open.server = await startScriptedServer([]);
    const { args, env } = modelFlags("openai", open.server);
    open.terminal = Terminal.start({ args, cwd: repo, home, env });
    const t = open.terminal;
    await t.waitFor("Ask cairn");
    t.type("half a thought");
    t.press("C-c");
    await t.waitFor("Ctrl-C again to exit");
    t.press("C-c");
    await t.waitFor("Not sent, kept in the prompt history (↑ brings it back): half a thought");
    expect(await t.exited()).toBe(0);
  });
});
