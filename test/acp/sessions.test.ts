import path from "node:path";
import { describe, expect, it } from "vitest";
import { openSession, stagePerTest, text } from "../helpers/acp.js";
import { makeGitRepo, makeHome } from "../helpers/cli.js";
import { JS_REPO } from "../helpers/runScript.js";

const stage = stagePerTest();

describe("cairn acp: stored sessions", () => {
  it("lists a stored session and loads it: its history replayed, the conversation continued", async () => {
    const server = await stage.serve([
      { toolCalls: [{ name: "read_file", args: { path: "src/sum.js" } }] },
      { reasoning: "The reducer subtracts each value.", text: "It subtracts: reduce with a - b." },
      { text: "It would return 6 once it adds." },
    ]);
    const [repo, home] = await Promise.all([makeGitRepo(JS_REPO), makeHome()]);
    let editor = stage.start({ server, home, format: "anthropic" });
    const { session } = await openSession(editor, repo);
    await editor.agent.request("session/prompt", {
      sessionId: session.sessionId,
      prompt: text("what does sum do?"),
    });
    // The model's thinking, where its provider sends it, as the editor's thought.
    expect(editor.updatesOf(session.sessionId, "agent_thought_chunk")).toEqual([
      {
        sessionUpdate: "agent_thought_chunk",
        content: { type: "text", text: "The reducer subtracts each value." },
      },
    ]);
    expect(await editor.close()).toBe(0);

    // The editor is reopened: a new cairn acp process, the same store.
    editor = stage.start({ server, home, format: "anthropic" });
    await editor.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    const listed = await editor.agent.request("session/list", { cwd: repo });
    expect(listed.sessions).toEqual([
      expect.objectContaining({ sessionId: session.sessionId, cwd: repo, title: "what does sum do?" }),
    ]);

    const loaded = await editor.agent.request("session/load", {
      sessionId: session.sessionId,
      cwd: repo,
      mcpServers: [],
    });
    expect(loaded.modes?.currentModeId).toBe("ask");
    // Replayed before the answer to session/load, in the order it happened.
    const replay = editor.updates.filter((n) => n.sessionId === session.sessionId).map((n) => n.update);
    expect(replay.map((update) => update.sessionUpdate)).toEqual([
      "user_message_chunk",
      "tool_call",
      "tool_call_update",
      "agent_thought_chunk",
      "agent_message_chunk",
    ]);
    expect(replay[0]).toMatchObject({ content: { type: "text", text: "what does sum do?" } });
    expect(replay[1]).toMatchObject({ title: "read_file src/sum.js", kind: "read" });
    expect(replay[2]).toMatchObject({
      status: "completed",
      locations: [{ path: path.join(repo, "src/sum.js"), line: 1 }],
    });
    expect(replay[4]).toMatchObject({ content: { type: "text", text: "It subtracts: reduce with a - b." } });

    const next = await editor.agent.request("session/prompt", {
      sessionId: session.sessionId,
      prompt: text("and if it added?"),
    });
    expect(next.stopReason).toBe("end_turn");
    const sent = JSON.stringify(server.requests[2]?.body.messages);
    expect(sent).toContain("what does sum do?");
    expect(sent).toContain("It subtracts: reduce with a - b.");
    expect(sent).toContain("and if it added?");
  });

  it("stores a thread opened and never written in, so the list shows it and loading it goes on from there", async () => {
    const server = await stage.serve([{ text: "Hello." }]);
    const [repo, home] = await Promise.all([makeGitRepo({ "a.txt": "a\n" }), makeHome()]);
    let editor = stage.start({ server, home });
    const { session } = await openSession(editor, repo);
    expect(await editor.close()).toBe(0);

    editor = stage.start({ server, home });
    await editor.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    const listed = await editor.agent.request("session/list", { cwd: repo });
    expect(listed.sessions).toEqual([
      { sessionId: session.sessionId, cwd: repo, updatedAt: expect.any(String) },
    ]);
    await editor.agent.request("session/load", { sessionId: session.sessionId, cwd: repo, mcpServers: [] });
    const next = await editor.agent.request("session/prompt", {
      sessionId: session.sessionId,
      prompt: text("hi there"),
    });
    expect(next.stopReason).toBe("end_turn");
    // Its first message names it.
    const again = await editor.agent.request("session/list", { cwd: repo });
    expect(again.sessions).toEqual([
      expect.objectContaining({ sessionId: session.sessionId, title: "hi there" }),
    ]);
  });

  it("refuses to load a session that is not stored", async () => {
    const server = await stage.serve([]);
    const [repo, home] = await Promise.all([makeGitRepo({ "a.txt": "a\n" }), makeHome()]);
    const editor = stage.start({ server, home });
    await editor.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    await expect(
      editor.agent.request("session/load", {
        sessionId: "20990101-000000-abcdef",
        cwd: repo,
        mcpServers: [],
      }),
    ).rejects.toMatchObject({ code: -32002 });
    const { session } = await openSession(editor, repo);
    expect(session.sessionId).toMatch(/^\d{8}-\d{6}-[0-9a-f]{6}$/);
  });
});
