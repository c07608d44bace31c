import { mkdir } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { doTask } from "../../src/agent/doTask.js";
import type { ApprovalPromptEvent } from "../../src/events/types.js";
import { makeRepo } from "../helpers/cli.js";
import { scriptedSession } from "../helpers/session.js";
import { type ScriptedServer, startScriptedServer } from "../support/scriptedServer.js";

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("an approval request", () => {
  it("carries in its event what the tool says its call touches: the text change, the command and its folder", async () => {
    const repo = await makeRepo({ "math.js": "return a - b;\n" });
    await mkdir(path.join(repo, "sub"));
    server = await startScriptedServer([
      {
        toolCalls: [
          { name: "edit_file", args: { path: "math.js", old_string: "a - b", new_string: "a + b" } },
          { name: "append_file", args: { path: "notes.md", content: "- fixed\n" } },
          { name: "run_command", args: { command: "npm test", cwd: "sub" } },
        ],
      },
      { text: "Nothing was allowed." },
    ]);
    const prompts: ApprovalPromptEvent[] = [];
    const session = await scriptedSession(server, repo, { approval: "ask", attended: true });
    session.bus.subscribe((event) => {
      if (event.type !== "approval.requested") return;
      prompts.push(event.prompt);
      void session.submit({ type: "approve", request_id: event.request_id, choice: "deny" });
    });
    await doTask(session, "fix the sum");
    expect(prompts.map(({ summary, change, command }) => ({ summary, change, command }))).toEqual([
      {
        summary: "edit_file math.js",
        change: { path: "math.js", old_text: "a - b", new_text: "a + b" },
        command: undefined,
      },
      {
        summary: "append_file notes.md",
        change: { path: "notes.md", old_text: null, new_text: "- fixed\n" },
        command: undefined,
      },
      {
        summary: "run_command npm test",
        change: undefined,
        command: { text: "npm test", cwd: path.join(repo, "sub") },
      },
    ]);
  });
});
