import { mkdir } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { doTask } from "../../src/agent/doTask.js";
import { createSession } from "../../src/agent/session.js";
import { configSchema } from "../../src/config/schema.js";
import type { ApprovalPrompt } from "../../src/safety/approval.js";
import { makeHome, makeRepo } from "../helpers/cli.js";
import { type ScriptedServer, startScriptedServer } from "../support/scriptedServer.js";

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("an approval prompt", () => {
  it("carries what the tool says its call touches: the text change, the command and its folder", async () => {
    const [repo, home] = await Promise.all([makeRepo({ "math.js": "return a - b;\n" }), makeHome()]);
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
    const prompts: ApprovalPrompt[] = [];
    const session = await createSession({
      config: configSchema.parse({
        providers: { openai: { base_url: server.openaiBaseUrl } },
        approval: "ask",
      }),
      modelId: "openai/gpt-4o",
      workspace: repo,
      mode: "do",
      signal: new AbortController().signal,
      env: { OPENAI_API_KEY: "sk-test", HOME: home, XDG_DATA_HOME: path.join(home, "data") },
      ask: async (prompt) => {
        prompts.push(prompt);
        return { choice: "deny" };
      },
    });
    await doTask(session, "fix the sum");
    expect(prompts.map(({ summary, change, command }) => ({ summary, change, command }))).toEqual([
      {
        summary: "edit_file math.js",
        change: { path: "math.js", oldText: "a - b", newText: "a + b" },
        command: undefined,
      },
      {
        summary: "append_file notes.md",
        change: { path: "notes.md", oldText: null, newText: "- fixed\n" },
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
