import { rmSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { stagePerTest, text } from "../helpers/acp.js";
import { makeGitRepo, makeHome } from "../helpers/cli.js";

const stage = stagePerTest();
const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A repository whose config asks for auto mode, and a home: the mode a session gets says whether it applied. */
async function setUp() {
  const [repo, home] = await Promise.all([
    makeGitRepo({ ".cairn/config.yaml": "approval: auto\n" }),
    makeHome(),
  ]);
  made.push(repo, home);
  return { repo, home };
}

describe("cairn acp in a folder whose files ask for more", () => {
  it("is not trusted unless the person or the editor says so: the log and the first answer say what was left out", async () => {
    const { repo, home } = await setUp();
    const server = await stage.serve([{ text: "Hello." }]);
    const editor = stage.start({ server, home });
    await editor.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    const session = await editor.agent.request("session/new", { cwd: repo, mcpServers: [] });
    expect(session.modes?.currentModeId).toBe("ask");
    expect(editor.stderr()).toContain(
      "cairn:   .cairn/config.yaml approval: run in auto approval mode (yours is ask)",
    );
    await editor.agent.request("session/prompt", { sessionId: session.sessionId, prompt: text("hi") });
    const thoughts = editor
      .updatesOf(session.sessionId, "agent_thought_chunk")
      .map((update) => update.content);
    expect(thoughts).toContainEqual({
      type: "text",
      text: expect.stringContaining("This folder is not trusted, so cairn left out what its files ask for"),
    });

    // An editor that asked its own question about the folder says the answer with the session.
    const trusted = await editor.agent.request("session/new", {
      cwd: repo,
      mcpServers: [],
      _meta: { cairn: { trustWorkspace: true } },
    });
    expect(trusted.modes?.currentModeId).toBe("auto");
    // Another key, or another value, is no such answer.
    const other = await editor.agent.request("session/new", {
      cwd: repo,
      mcpServers: [],
      _meta: { cairn: { trustWorkspace: "yes" }, trustWorkspace: true },
    });
    expect(other.modes?.currentModeId).toBe("ask");
  });

  it("cairn acp --trust-workspace trusts every session's folder", async () => {
    const { repo, home } = await setUp();
    const server = await stage.serve([]);
    const editor = stage.start({ server, home, args: ["--trust-workspace"] });
    await editor.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    const session = await editor.agent.request("session/new", { cwd: repo, mcpServers: [] });
    expect(session.modes?.currentModeId).toBe("auto");
    expect(editor.stderr()).not.toContain("not trusted");
  });
});
