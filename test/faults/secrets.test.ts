import { randomBytes } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { makeRepo } from "../helpers/cli.js";
import { classify, intent, onePlan, runScript, structuredName } from "../helpers/runScript.js";
import type { ScriptedTurn } from "../support/scriptedServer.js";
import { closeServers, runFaulty, toolResults } from "./harness.js";

afterEach(closeServers);

/** A provider key of the real shape, new for each test so no other text can contain it. */
function providerKey(): string {
  return `sk-proj-${randomBytes(24).toString("base64url")}`;
}

/** Every byte cairn keeps in its data folder: the store's database and journal, checkpoints. */
async function dataFolderText(home: string): Promise<string> {
  const root = path.join(home, "data");
  const files = await readdir(root, { recursive: true, withFileTypes: true });
  const texts = await Promise.all(
    files
      .filter((entry) => entry.isFile())
      .map((entry) => readFile(path.join(entry.parentPath, entry.name), "latin1")),
  );
  return texts.join("\n");
}

const TOKEN = `ghp_${"a1B2c3D4e5".repeat(4)}`;

describe("secrets", () => {
  it("a provider key in tool outputs, a tool's error and the model's streamed text never reaches stdout or the store", async () => {
    const key = providerKey();
    const repo = await makeRepo({ ".env": `OPENAI_API_KEY=${key}\nGITHUB_TOKEN=${TOKEN}\n` });
    const echoed: ScriptedTurn = { text: `The key in .env is ${key} and it works.` };
    for (const format of ["stream-json", "text"]) {
      const run = await runFaulty(
        repo,
        "check the key",
        [
          {
            toolCalls: [
              { name: "read_file", args: { path: ".env" } },
              { name: "run_command", args: { command: "echo $OPENAI_API_KEY; cat .env" } },
              { name: "read_file", args: { path: `backup-${key}.txt` } },
            ],
          },
          echoed,
        ],
        { env: { OPENAI_API_KEY: key }, args: ["--output-format", format] },
      );
      expect(run.code, run.stderr).toBe(0);
      // The model did get the key: redaction is for what cairn shows and keeps.
      expect(JSON.stringify(run.server.requests.at(-1)?.body)).toContain(key);
      for (const [where, text] of [
        ["stdout", run.stdout],
        ["stderr", run.stderr],
        ["the store", await dataFolderText(run.home)],
      ]) {
        expect(text, where).not.toContain(key);
        expect(text, where).not.toContain(key.slice(8, 24));
        expect(text, where).not.toContain(TOKEN);
      }
      expect(run.stdout).toContain("[REDACTED:OPENAI_API_KEY]");
    }
    const run = await runFaulty(
      repo,
      "check the key",
      [{ toolCalls: [{ name: "read_file", args: { path: ".env" } }] }, echoed],
      {
        env: { OPENAI_API_KEY: key },
      },
    );
    const [read] = toolResults(run.events);
    expect(read?.output).toMatch(
      /1\tOPENAI_API_KEY=\[REDACTED:OPENAI_API_KEY\]\n +2\tGITHUB_TOKEN=\[REDACTED\]$/,
    );
    const message = run.events.find((event) => event.type === "message");
    expect(message?.text).toBe("The key in .env is [REDACTED:OPENAI_API_KEY] and it works.");
  });

  it("a key a provider echoes in its error never reaches the report, stdout, stderr or the store", async () => {
    const key = providerKey();
    const repo = await makeRepo({ "notes.md": "# notes\n" });
    const script = runScript({
      classification: [classify()],
      intent: [intent(["notes.md"])],
      plan: [onePlan("Add a line to the notes", ["notes.md"])],
      execution: [
        { toolCalls: [{ name: "append_file", args: { path: "notes.md", content: "more\n" } }] },
        { text: "Added a line." },
      ],
    });
    const rejected: ScriptedTurn = {
      error: {
        status: 401,
        body: {
          error: {
            message: `Incorrect API key provided: ${key}. You can find your API key at https://platform.openai.com/account/api-keys.`,
            type: "invalid_request_error",
            code: "invalid_api_key",
          },
        },
      },
    };
    const run = await runFaulty(
      repo,
      "add a line to the notes",
      (request) => (structuredName(request) === "review" ? rejected : script(request)),
      { command: "run", env: { OPENAI_API_KEY: key }, args: ["--output-format", "json"] },
    );
    expect(run.code).toBe(2);
    const result = JSON.parse(run.stdout) as { status: string; summary: string; session_id: string };
    expect(result.summary).toMatch(/Incorrect API key provided: \[REDACTED:OPENAI_API_KEY\]/);
    expect(result.summary).toMatch(/openai rejected the API key: check OPENAI_API_KEY/);
    const report = await readFile(path.join(repo, ".cairn", "reports", `${result.session_id}.md`), "utf8");
    expect(report).toMatch(/\[REDACTED:OPENAI_API_KEY\]/);
    for (const [where, text] of [
      ["the report", report],
      ["stdout", run.stdout],
      ["stderr", run.stderr],
      ["the store", await dataFolderText(run.home)],
    ]) {
      expect(text, where).not.toContain(key);
    }
  });
});
