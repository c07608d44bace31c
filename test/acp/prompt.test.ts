import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import type { ToolCallContent } from "@agentclientprotocol/sdk";
import { describe, expect, it } from "vitest";
import { storePath } from "../../src/store/db.js";
import { Store } from "../../src/store/sessions.js";
import { openSession, stagePerTest, text } from "../helpers/acp.js";
import { makeGitRepo, makeHome } from "../helpers/cli.js";
import { FIX_SUM, JS_REPO } from "../helpers/runScript.js";
import { until } from "../helpers/wait.js";

const stage = stagePerTest();

/** The diff blocks among a tool call's content. */
const diffs = (content: ToolCallContent[] | null | undefined) =>
  (content ?? []).filter((block) => block.type === "diff");

describe("cairn acp: a prompt", () => {
  it("reads, edits (a diff in the update), runs the tests, streams the answer and ends the turn", async () => {
    const server = await stage.serve([
      { text: "Let me look.", toolCalls: [{ name: "read_file", args: { path: "src/sum.js" } }] },
      { toolCalls: [FIX_SUM] },
      { toolCalls: [{ name: "run_command", args: { command: "npm test" } }] },
      { text: "Fixed: sum adds now, and the test passes.", usage: { input: 1200, output: 30 } },
    ]);
    const [repo, home] = await Promise.all([makeGitRepo(JS_REPO), makeHome()]);
    // The person's own command is offered beside cairn's.
    await mkdir(path.join(home, "config", "cairn", "commands"), { recursive: true });
    await writeFile(
      path.join(home, "config", "cairn", "commands", "explain.md"),
      "Explain $ARGUMENTS simply.",
    );
    const editor = stage.start({ server, home, args: ["--approval", "auto"] });
    const { init, session } = await openSession(editor, repo);
    expect(init.agentCapabilities).toMatchObject({
      loadSession: true,
      promptCapabilities: { embeddedContext: true, image: true },
      sessionCapabilities: { list: {} },
    });
    expect(init.authMethods).toEqual([]);
    expect(session.modes?.currentModeId).toBe("auto");
    expect(session.modes?.availableModes.map((mode) => mode.id)).toEqual([
      "ask",
      "auto-edit",
      "auto",
      "read-only",
    ]);
    const { sessionId } = session;

    const response = await editor.agent.request("session/prompt", { sessionId, prompt: text("fix the sum") });
    expect(response.stopReason).toBe("end_turn");
    expect(await readFile(path.join(repo, "src/sum.js"), "utf8")).toContain("(a, b) => a + b");

    const calls = editor.updatesOf(sessionId, "tool_call");
    expect(calls.map((call) => [call.kind, call.title])).toEqual([
      ["read", "read_file src/sum.js"],
      ["edit", "edit_file src/sum.js"],
      ["execute", "run_command npm test"],
    ]);
    const results = editor.updatesOf(sessionId, "tool_call_update").filter((u) => u.status === "completed");
    const [read, edit, run] = calls.map((call) => results.find((r) => r.toolCallId === call.toolCallId));
    const file = path.join(repo, "src/sum.js");
    expect(read?.locations).toEqual([{ path: file, line: 1 }]);
    expect(diffs(edit?.content)).toEqual([
      expect.objectContaining({
        path: file,
        oldText: expect.stringContaining("(a, b) => a - b"),
        newText: expect.stringContaining("(a, b) => a + b"),
      }),
    ]);
    expect(edit?.locations).toEqual([{ path: file, line: 1 }]);
    expect(JSON.stringify(run?.content)).toContain("pass 1");

    const answer = editor
      .updatesOf(sessionId, "agent_message_chunk")
      .map((chunk) => (chunk.content.type === "text" ? chunk.content.text : ""))
      .join("");
    expect(answer).toContain("Fixed: sum adds now, and the test passes.");

    // Usage: in the response and the context meter, and in the store whatever the editor shows.
    // The agent ran the project's own check (npm test) after its last edit and it passed: that
    // is the turn's check, so cairn's own status says it is completed, checked.
    expect(response._meta).toMatchObject({
      cairn: {
        usage: { calls: 4, input_tokens: expect.any(Number) },
        status: "completed",
        reason: "checks_passed",
      },
    });
    const usage = editor.updatesOf(sessionId, "usage_update").at(-1);
    expect(usage).toMatchObject({ used: 1230, size: expect.any(Number) });
    const store = Store.open(storePath({ XDG_DATA_HOME: path.join(home, "data"), HOME: home }));
    try {
      expect(store.costs({ groupBy: "phase", sessionId }).reduce((n, row) => n + row.calls, 0)).toBe(4);
    } finally {
      store.close();
    }

    // The slash commands are offered, and run without a model call.
    await until("commands", () => editor.updatesOf(sessionId, "available_commands_update").length === 1);
    const [offered] = editor.updatesOf(sessionId, "available_commands_update");
    expect(offered?.availableCommands.map((command) => command.name)).toEqual([
      "model",
      "run",
      "cost",
      "undo",
      "compact",
      "skills",
      "explain",
    ]);
    const before = editor.updatesOf(sessionId, "agent_message_chunk").length;
    const cost = await editor.agent.request("session/prompt", { sessionId, prompt: text("/cost") });
    expect(cost.stopReason).toBe("end_turn");
    expect(JSON.stringify(editor.updatesOf(sessionId, "agent_message_chunk").slice(before))).toContain(
      "execution",
    );
    expect(server.requests).toHaveLength(4);

    // stdout carried the protocol and nothing else.
    for (const line of editor.stdout.filter(Boolean))
      expect(JSON.parse(line)).toHaveProperty("jsonrpc", "2.0");
    expect(await editor.close()).toBe(0);
  });

  it("asks in ask mode: allow always is not asked again, and a rejection reaches the model", async () => {
    const server = await stage.serve([
      { toolCalls: [{ name: "write_file", args: { path: "notes.txt", content: "one\n" } }] },
      { toolCalls: [{ name: "write_file", args: { path: "more.txt", content: "two\n" } }] },
      { toolCalls: [{ name: "run_command", args: { command: "touch made.txt" } }] },
      { text: "Understood, I will not run it." },
    ]);
    const [repo, home] = await Promise.all([makeGitRepo({ "README.md": "# r\n" }), makeHome()]);
    const answers = ["session", "deny"];
    const editor = stage.start({ server, home, args: ["--approval", "ask"], answer: () => answers.shift() });
    const { session } = await openSession(editor, repo);
    const { sessionId } = session;

    const response = await editor.agent.request("session/prompt", {
      sessionId,
      prompt: text("write two notes, then make a file"),
    });
    expect(response.stopReason).toBe("end_turn");
    expect(editor.permissions).toHaveLength(2);
    const [write, command] = editor.permissions;
    expect(write?.options.map((option) => option.kind)).toEqual([
      "allow_once",
      "allow_always",
      "allow_always",
      "reject_once",
    ]);
    expect(write?.toolCall).toMatchObject({ title: "write_file notes.txt", kind: "edit" });
    expect(diffs(write?.toolCall.content)).toEqual([
      expect.objectContaining({ path: path.join(repo, "notes.txt"), newText: "one\n" }),
    ]);
    expect(command?.toolCall).toMatchObject({ title: "run_command touch made.txt", kind: "execute" });

    expect(await readFile(path.join(repo, "notes.txt"), "utf8")).toBe("one\n");
    expect(await readFile(path.join(repo, "more.txt"), "utf8")).toBe("two\n");
    await expect(readFile(path.join(repo, "made.txt"))).rejects.toThrow();
    expect(JSON.stringify(server.requests[3]?.body.messages.at(-1))).toContain("The user declined");
    const failed = editor.updatesOf(sessionId, "tool_call_update").filter((u) => u.status === "failed");
    expect(failed.map((u) => u.toolCallId)).toEqual([command?.toolCall.toolCallId]);
  });

  it("cancels a hanging model call within a second, keeping the edit already made", async () => {
    const server = await stage.serve([
      { toolCalls: [FIX_SUM] },
      { hang: true },
      { text: "The fix is in, and", finish: "length" },
    ]);
    const [repo, home] = await Promise.all([makeGitRepo(JS_REPO), makeHome()]);
    const editor = stage.start({ server, home, args: ["--approval", "auto-edit"] });
    const { session } = await openSession(editor, repo);
    const { sessionId } = session;

    const prompt = editor.agent.request("session/prompt", { sessionId, prompt: text("fix the sum") });
    await until("the second model call", () => server?.requests.length === 2);
    // The model never answers: only the cancel ends the prompt.
    await editor.agent.notify("session/cancel", { sessionId });
    const response = await prompt;
    expect(response.stopReason).toBe("cancelled");
    expect(await readFile(path.join(repo, "src/sum.js"), "utf8")).toContain("(a, b) => a + b");

    // The session goes on, the model told; an answer cut at the output limit ends as max_tokens.
    const next = await editor.agent.request("session/prompt", { sessionId, prompt: text("go on") });
    expect(next.stopReason).toBe("max_tokens");
    expect(JSON.stringify(server.requests[2]?.body.messages.at(-1))).toContain("The user interrupted");
  });
});
