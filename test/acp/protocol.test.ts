import { describe, expect, it } from "vitest";
import { openSession, stagePerTest } from "../helpers/acp.js";
import { makeGitRepo, makeHome, runCairn, spawnCairn } from "../helpers/cli.js";
import { until } from "../helpers/wait.js";

const stage = stagePerTest();

describe("cairn acp: the protocol's errors", () => {
  it("answers malformed JSON, an unknown method and an unknown session with errors, and keeps serving", async () => {
    const server = await stage.serve([{ text: "Still here." }]);
    const [repo, home] = await Promise.all([makeGitRepo({ "a.txt": "a\n" }), makeHome()]);
    const editor = stage.start({ server, home });
    await editor.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });

    editor.child.stdin.write("{this is not json\n");
    const parseError = () =>
      editor.stdout
        .filter(Boolean)
        .map((line) => JSON.parse(line))
        .find((message) => message.error?.code === -32700);
    await until("the parse error", () => parseError() !== undefined);
    expect(parseError()).toMatchObject({ jsonrpc: "2.0", id: null });

    await expect(editor.agent.request("nope/unknown", {})).rejects.toMatchObject({ code: -32601 });
    await expect(
      editor.agent.request("session/prompt", {
        sessionId: "no-such-session",
        prompt: [{ type: "text", text: "hi" }],
      }),
    ).rejects.toMatchObject({ code: -32002, data: { sessionId: "no-such-session" } });

    const { session } = await openSession(editor, repo);
    const response = await editor.agent.request("session/prompt", {
      sessionId: session.sessionId,
      prompt: [{ type: "text", text: "are you there?" }],
    });
    expect(response.stopReason).toBe("end_turn");
    expect(editor.child.exitCode).toBeNull();
  });

  it("names the API-key variables when none is set, and asks for one before a session", async () => {
    const [repo, home] = await Promise.all([makeGitRepo({ "a.txt": "a\n" }), makeHome()]);
    const child = spawnCairn(["acp", "--cwd", repo], { home }, ["pipe", "pipe", "pipe"]);
    const lines: string[] = [];
    child.stdout.on("data", (chunk) => lines.push(...String(chunk).split("\n").filter(Boolean)));
    const reply = async (id: number) => {
      await until(`the answer to request ${id}`, () => lines.some((line) => JSON.parse(line).id === id));
      return JSON.parse(lines.find((line) => JSON.parse(line).id === id) ?? "{}");
    };
    child.stdin?.write(
      `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1 } })}\n`,
    );
    const init = await reply(1);
    const variables = init.result.authMethods.map((method: { id: string }) => method.id);
    expect(variables).toContain("OPENAI_API_KEY");
    expect(variables).toContain("ANTHROPIC_API_KEY");
    // Said for a program too: an editor looks the key up by its provider's host (cairn.el, in auth-source).
    expect(
      init.result.authMethods.find((method: { id: string }) => method.id === "ANTHROPIC_API_KEY")._meta,
    ).toEqual({ cairn: { provider: "anthropic", variable: "ANTHROPIC_API_KEY", host: "api.anthropic.com" } });
    child.stdin?.write(
      `${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "session/new", params: { cwd: repo, mcpServers: [] } })}\n`,
    );
    const refused = (await reply(2)).error;
    expect(refused).toMatchObject({ code: -32000, message: expect.stringContaining("API key") });
    // Which provider, and both ways to give its key: in the editor's settings, or stored once.
    expect(refused.message).toContain("agent_servers.cairn.env");
    expect(refused.message).toContain("cairn auth login <provider>");
    expect(init.result.authMethods[0].description).toContain("cairn auth login");
    child.stdin?.end();
    await new Promise((resolve) => child.on("close", resolve));

    // A stored key is one the editor need not give.
    await runCairn(["auth", "login", "openai"], { home, input: "sk-stored\n" });
    const again = spawnCairn(["acp", "--cwd", repo], { home }, ["pipe", "pipe", "pipe"]);
    const answers: string[] = [];
    again.stdout.on("data", (chunk) => answers.push(...String(chunk).split("\n").filter(Boolean)));
    again.stdin?.write(
      `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1 } })}\n`,
    );
    await until("the answer to initialize", () => answers.length > 0);
    expect(JSON.parse(answers[0] ?? "{}").result.authMethods).toEqual([]);
    again.stdin?.end();
    await new Promise((resolve) => again.on("close", resolve));
  });
});
