import { afterEach, describe, expect, it } from "vitest";
import { doTask } from "../../src/agent/doTask.js";
import type { EventOf, StampedEvent } from "../../src/events/types.js";
import { detectSandbox } from "../../src/safety/sandbox.js";
import { makeRepo } from "../helpers/cli.js";
import { scriptedSession } from "../helpers/session.js";
import { type ScriptedServer, startScriptedServer } from "../support/scriptedServer.js";

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const PASSWORD = "correct-horse-battery-staple";

const READ_FILE = { name: "read_file", args: { path: ".env" } };

/** An attended session in ask mode whose model reads `.env`, answered by `choice` through submit. */
async function readEnvAsked(choice: "once" | "deny", call: { name: string; args: object } = READ_FILE) {
  server = await startScriptedServer([{ toolCalls: [call] }, { text: "Read it." }]);
  const repo = await makeRepo({ ".env": `DB_PASSWORD=${PASSWORD}\n` });
  const session = await scriptedSession(server, repo, { approval: "ask", attended: true });
  const events: StampedEvent[] = [];
  session.bus.subscribe((event) => {
    events.push(event);
    if (event.type === "approval.requested")
      void session.submit({ type: "approve", request_id: event.request_id, choice });
  });
  await doTask(session, "read the database settings");
  const requested = events.find((e) => e.type === "approval.requested") as EventOf<"approval.requested">;
  const sent = server.requests.at(-1)?.rawBody ?? "";
  return { requested, sent, events };
}

describe("reading a secret file in ask mode", () => {
  it("is asked as class secret, with the reason and without always; once allowed, the model reads it", async () => {
    const { requested, sent, events } = await readEnvAsked("once");
    expect(requested.prompt).toMatchObject({
      tool: "read_file",
      permission: "secret",
      summary: "read_file .env",
    });
    expect(requested.prompt.dangers[0]).toBe(
      ".env looks like a secret file (keys, passwords): what it reads goes to the model's provider.",
    );
    expect(requested.options).toEqual(["once", "deny"]);
    expect(sent).toContain(`DB_PASSWORD=${PASSWORD}`);
    // What the person sees and cairn keeps is still redacted.
    expect(JSON.stringify(events)).not.toContain(PASSWORD);
  });

  it.skipIf(detectSandbox().kind !== "bwrap")(
    "by a command the person allows, reads it inside the sandbox, which hides it from every other command",
    async () => {
      const { sent } = await readEnvAsked("once", { name: "run_command", args: { command: "cat .env" } });
      expect(sent).toContain(`DB_PASSWORD=${PASSWORD}`);
      server?.close();
      const sneaky =
        "node -e \"console.log(JSON.stringify(require('fs').readFileSync('.e' + 'nv', 'utf8')))\"";
      const hidden = await readEnvAsked("once", { name: "run_command", args: { command: sneaky } });
      // Asked as any command is in ask mode: nothing on its line says it reads a secret.
      expect(hidden.requested.prompt.permission).toBe("exec");
      expect(hidden.sent).not.toContain(PASSWORD);
      expect(hidden.sent).toContain('\\n\\"\\"\\n');
    },
  );

  it("declined, leaves the file unread", async () => {
    const { sent } = await readEnvAsked("deny");
    expect(sent).not.toContain(PASSWORD);
    expect(sent).toContain("The user declined `read_file .env`.");
  });
});
