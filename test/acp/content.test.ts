import { pathToFileURL } from "node:url";
import type { ContentBlock } from "@agentclientprotocol/sdk";
import { describe, expect, it } from "vitest";
import { openSession, stagePerTest } from "../helpers/acp.js";
import { makeGitRepo, makeHome } from "../helpers/cli.js";
import { JS_REPO } from "../helpers/runScript.js";

const stage = stagePerTest();

/** A 1×1 PNG, as an editor sends a pasted screenshot: base64 data and its type. */
const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

const withImage: ContentBlock[] = [
  { type: "text", text: "What colour is this pixel?" },
  { type: "image", data: PNG, mimeType: "image/png" },
];

describe("cairn acp: what a prompt carries besides text", () => {
  it("offers images when the model takes them, and the model sees the picture", async () => {
    const server = await stage.serve([{ text: "It is red." }]);
    const [repo, home] = await Promise.all([makeGitRepo({ "README.md": "# r\n" }), makeHome()]);
    const editor = stage.start({ server, home, format: "anthropic" });
    const { init, session } = await openSession(editor, repo);
    expect(init.agentCapabilities?.promptCapabilities).toMatchObject({ image: true, embeddedContext: true });

    const response = await editor.agent.request("session/prompt", {
      sessionId: session.sessionId,
      prompt: withImage,
    });
    expect(response.stopReason).toBe("end_turn");
    const message = server.requests[0]?.body.messages.at(-1);
    expect(message.role).toBe("user");
    expect(message.content).toContainEqual(
      expect.objectContaining({
        type: "image",
        source: { type: "base64", media_type: "image/png", data: PNG },
      }),
    );
    // The text says where the image stood.
    expect(JSON.stringify(message.content)).toMatch(/What colour is this pixel\? \[image 1: image\/png/);
  });

  it("sends them over OpenAI's wire too, as a data URL beside the text", async () => {
    const server = await stage.serve([{ text: "It is red." }]);
    const [repo, home] = await Promise.all([makeGitRepo({ "README.md": "# r\n" }), makeHome()]);
    const editor = stage.start({ server, home });
    const { init, session } = await openSession(editor, repo);
    expect(init.agentCapabilities?.promptCapabilities).toMatchObject({ image: true });
    await editor.agent.request("session/prompt", { sessionId: session.sessionId, prompt: withImage });
    const message = server.requests[0]?.body.messages.at(-1);
    expect(message.content).toContainEqual({
      type: "image_url",
      image_url: { url: `data:image/png;base64,${PNG}` },
    });
  });

  it("with a model that reads text only, offers no images and tells the model one was left out", async () => {
    const server = await stage.serve([{ text: "I cannot see it." }]);
    const [repo, home] = await Promise.all([makeGitRepo({ "README.md": "# r\n" }), makeHome()]);
    const editor = stage.start({ server, home, format: "ollama" });
    const { init, session } = await openSession(editor, repo);
    expect(init.agentCapabilities?.promptCapabilities).toMatchObject({ image: false });

    // An editor may send one all the same.
    const response = await editor.agent.request("session/prompt", {
      sessionId: session.sessionId,
      prompt: withImage,
    });
    expect(response.stopReason).toBe("end_turn");
    const sent = JSON.stringify(server.requests[0]?.body.messages.at(-1));
    expect(sent).toContain("[image attached, which cairn cannot read");
    expect(sent).not.toContain(PNG);
    expect(sent).not.toContain("image_url");
  });

  it("sends @-mentioned files: an embedded buffer's unsaved text, and a linked file read where the person sees it", async () => {
    const server = await stage.serve([{ text: "sum subtracts; the draft adds." }]);
    const [repo, home] = await Promise.all([makeGitRepo(JS_REPO), makeHome()]);
    const editor = stage.start({ server, home });
    const { session } = await openSession(editor, repo);
    const { sessionId } = session;
    const draft = "export const total = (xs) => xs.reduce((a, b) => a + b, 0); // unsaved\n";

    const response = await editor.agent.request("session/prompt", {
      sessionId,
      prompt: [
        { type: "text", text: "Compare " },
        {
          type: "resource",
          resource: {
            uri: pathToFileURL(`${repo}/src/draft.js`).href,
            mimeType: "text/javascript",
            text: draft,
          },
        },
        { type: "text", text: " with " },
        { type: "resource_link", uri: pathToFileURL(`${repo}/src/sum.js`).href, name: "sum.js" },
      ],
    });
    expect(response.stopReason).toBe("end_turn");

    const prompt = server.requests[0]?.body.messages.at(-1);
    expect(prompt.role).toBe("user");
    const said = typeof prompt.content === "string" ? prompt.content : JSON.stringify(prompt.content);
    expect(said).toContain("Compare `src/draft.js` with @src/sum.js");
    // The embedded text, as the editor had it (the file is not even on disk).
    expect(said).toContain('<attached file="src/draft.js">');
    expect(said).toContain("// unsaved");
    // The linked file, read from the workspace.
    expect(said).toContain('<attached file="src/sum.js">');
    expect(said).toContain("(a, b) => a - b");
    // The editor shows that read as a call of its own.
    expect(editor.updatesOf(sessionId, "tool_call").map((call) => call.title)).toEqual([
      "read_file src/sum.js",
    ]);
  });
});
