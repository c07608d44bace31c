import { afterEach, describe, expect, it } from "vitest";
import { makeHome, makeRepo, modelFlags, runCairn, startCairn, streamEvents } from "../helpers/cli.js";
import { scaled } from "../helpers/timeScale.js";
import { until } from "../helpers/wait.js";
import { type ScriptedServer, type ScriptedTurn, startScriptedServer } from "../support/scriptedServer.js";

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/**
 * `cairn do` on a scripted model (its last turn hangs), started as a user would and waited on
 * until it made `requests` requests.
 */
async function doUntilAsked(home: string, script: ScriptedTurn[], format: string) {
  const repo = await makeRepo({ "a.txt": "a\n" });
  server = await startScriptedServer(script);
  const { args, env } = modelFlags("openai", server);
  const started = startCairn(
    ["do", "change a.txt", ...args, "--cwd", repo, "--approval", "auto", "--output-format", format],
    { home, env },
  );
  const asked = server;
  await until("the model to be asked", () => asked.requests.length >= script.length);
  return started;
}

describe("SIGTERM and SIGHUP", () => {
  it("end a session as cancelled with exit 1, in every output format", {
    timeout: scaled(60_000),
  }, async () => {
    for (const [signal, format] of [
      ["SIGTERM", "json"],
      ["SIGHUP", "text"],
    ] as const) {
      const { child, exited, output } = await doUntilAsked(await makeHome(), [{ hang: true }], format);
      child.kill(signal);
      expect(await exited).toBe(1);
      if (format === "json") {
        expect(JSON.parse(output.stdout)).toMatchObject({ status: "cancelled", reason: "interrupted" });
      } else {
        expect(output.stderr).toMatch(/cancelled · /);
      }
      await server?.close();
      server = undefined;
    }
  });
});

describe("Ctrl-C", () => {
  it("once: stops the current action, ends the session as cancelled and keeps it resumable", async () => {
    const home = await makeHome();
    const { child, exited, output } = await doUntilAsked(
      home,
      [{ toolCalls: [{ name: "write_file", args: { path: "a.txt", content: "b\n" } }] }, { hang: true }],
      "stream-json",
    );
    child.kill("SIGINT");
    expect(await exited).toBe(1);
    const result = streamEvents(output.stdout).find((e) => e.type === "result");
    expect(result).toMatchObject({ status: "cancelled", files_changed: ["a.txt"] });
    const listed = JSON.parse((await runCairn(["sessions", "--json"], { home })).stdout);
    expect(listed[0]).toMatchObject({ id: result?.session_id, status: "cancelled" });
  });
});
