import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { openSession, stagePerTest, text } from "../helpers/acp.js";
import { makeGitRepo, makeHome, ownSleep, processRunning } from "../helpers/cli.js";
import { until } from "../helpers/wait.js";
import { COUNT, stdio } from "../mcp/servers.js";

const stage = stagePerTest();

describe("cairn acp: during a turn", () => {
  it("stops asking about edits once switched to auto-edit, and still asks about commands", async () => {
    const server = await stage.serve([
      { toolCalls: [{ name: "write_file", args: { path: "one.txt", content: "one\n" } }] },
      { text: "Wrote one.txt." },
      { toolCalls: [{ name: "write_file", args: { path: "two.txt", content: "two\n" } }] },
      { toolCalls: [{ name: "edit_file", args: { path: "one.txt", old_string: "one", new_string: "uno" } }] },
      { toolCalls: [{ name: "run_command", args: { command: "touch three.txt" } }] },
      { text: "Done." },
    ]);
    const [repo, home] = await Promise.all([makeGitRepo({ "README.md": "# r\n" }), makeHome()]);
    const editor = stage.start({ server, home, args: ["--approval", "ask"], answer: () => "once" });
    const { session } = await openSession(editor, repo);
    const { sessionId } = session;
    expect(session.modes?.currentModeId).toBe("ask");

    await editor.agent.request("session/prompt", { sessionId, prompt: text("write one.txt") });
    expect(editor.permissions.map((p) => p.toolCall.title)).toEqual(["write_file one.txt"]);

    await editor.agent.request("session/set_mode", { sessionId, modeId: "auto-edit" });
    const response = await editor.agent.request("session/prompt", {
      sessionId,
      prompt: text("write two.txt, change one.txt, then make three.txt"),
    });
    expect(response.stopReason).toBe("end_turn");
    // The writes went ahead unasked; the command was still asked about.
    expect(editor.permissions.map((p) => p.toolCall.title)).toEqual([
      "write_file one.txt",
      "run_command touch three.txt",
    ]);
    expect(await readFile(path.join(repo, "two.txt"), "utf8")).toBe("two\n");
    expect(await readFile(path.join(repo, "one.txt"), "utf8")).toBe("uno\n");
    expect(await readFile(path.join(repo, "three.txt"), "utf8")).toBe("");

    // A mode cairn does not have is refused, and the session keeps its own.
    await expect(editor.agent.request("session/set_mode", { sessionId, modeId: "yolo" })).rejects.toThrow(
      /the modes are ask, auto-edit, auto, read-only/,
    );
  });

  it("shows the TODO list as a plan each time the model writes it", async () => {
    const server = await stage.serve([
      {
        toolCalls: [
          {
            name: "todo_write",
            args: {
              todos: [
                { id: "1", content: "Read the README", status: "in_progress", priority: "high" },
                { id: "2", content: "Summarise it", status: "pending" },
              ],
            },
          },
        ],
      },
      { toolCalls: [{ name: "read_file", args: { path: "README.md" } }] },
      {
        toolCalls: [
          {
            name: "todo_write",
            args: {
              todos: [
                { id: "1", content: "Read the README", status: "completed", priority: "high" },
                { id: "2", content: "Summarise it", status: "in_progress" },
              ],
            },
          },
        ],
      },
      { text: "It is a readme." },
    ]);
    const [repo, home] = await Promise.all([makeGitRepo({ "README.md": "# r\n" }), makeHome()]);
    const editor = stage.start({ server, home });
    const { session } = await openSession(editor, repo);
    const { sessionId } = session;

    const response = await editor.agent.request("session/prompt", { sessionId, prompt: text("summarise") });
    expect(response.stopReason).toBe("end_turn");
    expect(editor.updatesOf(sessionId, "plan")).toEqual([
      {
        sessionUpdate: "plan",
        entries: [
          { content: "Read the README", status: "in_progress", priority: "high" },
          { content: "Summarise it", status: "pending", priority: "medium" },
        ],
      },
      {
        sessionUpdate: "plan",
        entries: [
          { content: "Read the README", status: "completed", priority: "high" },
          { content: "Summarise it", status: "in_progress", priority: "medium" },
        ],
      },
    ]);
  });

  it("cancels a running command, leaving no process behind", async () => {
    // Longer than the test may take however busy the machine: only the cancel can end the prompt.
    const sleep = ownSleep(419);
    const server = await stage.serve([
      { toolCalls: [{ name: "run_command", args: { command: sleep.join(" ") } }] },
      { text: "Stopped, as asked." },
    ]);
    const [repo, home] = await Promise.all([makeGitRepo({ "README.md": "# r\n" }), makeHome()]);
    const editor = stage.start({ server, home, args: ["--approval", "auto"] });
    const { session } = await openSession(editor, repo);
    const { sessionId } = session;

    const prompt = editor.agent.request("session/prompt", { sessionId, prompt: text("wait a while") });
    await until("the command to start", () => processRunning(sleep));
    await editor.agent.notify("session/cancel", { sessionId });
    const response = await prompt;
    expect(response.stopReason).toBe("cancelled");
    expect(processRunning(sleep)).toBe(false);
    // The call is shown as ended, and as failed: a command the cancel killed did not complete.
    const [call] = editor.updatesOf(sessionId, "tool_call");
    const ends = editor
      .updatesOf(sessionId, "tool_call_update")
      .filter(
        (u) => u.toolCallId === call?.toolCallId && (u.status === "completed" || u.status === "failed"),
      );
    expect(ends.map((u) => u.status)).toEqual(["failed"]);
    expect(server.requests).toHaveLength(1);
  });

  it("in a folder the person trusts, asks the editor before starting an MCP server the repository defines, and offers its tools once allowed", async () => {
    const server = await stage.serve([{ text: "Ready." }]);
    const home = await makeHome();
    const marker = path.join(home, "started");
    const repo = await makeGitRepo({
      "README.md": "# r\n",
      ".mcp.json": JSON.stringify({
        mcpServers: { counter: stdio(COUNT, "--tools", "2", "--marker", marker) },
      }),
    });
    // Untrusted, the repository's own server is left out without a question (test/faults/workspaceServers.test.ts).
    const editor = stage.start({
      server,
      home,
      args: ["--approval", "ask", "--trust-workspace"],
      answer: () => "once",
    });
    const { session } = await openSession(editor, repo);
    await editor.agent.request("session/prompt", { sessionId: session.sessionId, prompt: text("get ready") });
    expect(editor.permissions.map((p) => p.toolCall.title)).toEqual([
      "start MCP server counter from .mcp.json",
    ]);
    expect(existsSync(marker)).toBe(true);
    const offered = server.requests[0]?.body.tools.map(
      (tool: { function: { name: string } }) => tool.function.name,
    );
    expect(offered).toContain("counter__tool_1");
    // Nothing updates a call the editor never saw.
    const ids = editor.updatesOf(session.sessionId, "tool_call_update").map((u) => u.toolCallId);
    expect(ids).not.toContain(editor.permissions[0]?.toolCall.toolCallId);
  });
});
