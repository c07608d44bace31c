import { appendFile, mkdir } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { openSession, stagePerTest, text } from "../helpers/acp.js";
import { makeHome, makeRepo } from "../helpers/cli.js";

const stage = stagePerTest();

describe("cairn acp: a message over max_message_bytes", () => {
  it("is refused as it arrives, with an error to that request, and the connection goes on", async () => {
    const server = await stage.serve([{ text: "Hello." }]);
    const [repo, home] = await Promise.all([makeRepo({ "a.txt": "a\n" }), makeHome()]);
    const config = path.join(home, "config", "cairn", "config.yaml");
    await mkdir(path.dirname(config), { recursive: true });
    await appendFile(config, "max_message_bytes: 1048576\n");
    const editor = stage.start({ server, home });
    const { session } = await openSession(editor, repo);
    const { sessionId } = session;

    const huge = editor.agent.request("session/prompt", { sessionId, prompt: text("x".repeat(5_000_000)) });
    await expect(huge).rejects.toMatchObject({
      code: -32600,
      message: expect.stringMatching(
        /message of \d+ bytes refused: over the 1.0 MB limit of cairn acp \(max_message_bytes\)/,
      ),
    });
    expect(editor.stderr()).toMatch(/refused a message of \d+ bytes from the editor/);
    expect(server.requests).toHaveLength(0);

    const answer = await editor.agent.request("session/prompt", { sessionId, prompt: text("say hello") });
    expect(answer.stopReason).toBe("end_turn");
    expect(server.requests).toHaveLength(1);
  });
});
