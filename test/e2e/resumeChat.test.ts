import { describe, expect, it } from "vitest";
import { makeHome, makeRepo, modelFlags, runCairn } from "../helpers/cli.js";
import { startScriptedServer } from "../support/scriptedServer.js";
import { closedAfterEach, hasTmux, Terminal } from "./tmux.js";

const open = closedAfterEach();

describe.skipIf(!hasTmux)("cairn resume on a chat session", () => {
  it("continues the conversation with --last and by id, the earlier messages sent to the model", async () => {
    const [repo, home] = await Promise.all([makeRepo({ "package.json": "{}\n" }), makeHome()]);
    open.server = await startScriptedServer([
      { text: "Noted: the colour is teal." },
      { text: "You said teal." },
      { text: "Still teal, and the size is large." },
    ]);
    const { args, env } = modelFlags("openai", open.server);
    const chat = async (command: string[], message: string, answer: string) => {
      open.terminal?.close();
      open.terminal = Terminal.start({ args: [...command, ...args], cwd: repo, home, env });
      const t = open.terminal;
      await t.waitFor("Ask cairn");
      t.type(message);
      t.press("Enter");
      await t.waitFor(answer);
      t.type("/exit");
      t.press("Enter");
      expect(await t.exited()).toBe(0);
    };
    await chat(["chat"], "remember that my colour is teal", "Noted: the colour is teal.");
    // The session completed its turn: a chat can be continued all the same.
    await chat(["resume", "--last"], "what colour did I say?", "You said teal.");
    const listed = await runCairn(["sessions", "--json", "--workspace", repo], { home });
    const sessions = JSON.parse(listed.stdout) as Array<{ id: string }>;
    expect(sessions).toHaveLength(1);
    await chat(["resume", sessions[0]!.id], "and the size is large", "Still teal, and the size is large.");

    const conversation = (i: number) => JSON.stringify(open.server?.requests[i]?.body.messages);
    expect(conversation(1)).toContain("remember that my colour is teal");
    expect(conversation(1)).toContain("Noted: the colour is teal.");
    expect(conversation(2)).toContain("remember that my colour is teal");
    expect(conversation(2)).toContain("what colour did I say?");
    expect(conversation(2)).toContain("You said teal.");
  });
});
