import { afterEach, describe, expect, it } from "vitest";
import { makeHome, makeRepo, modelFlags, runCairn, spawnCairn, streamEvents } from "../helpers/cli.js";
import { type ScriptedServer, startScriptedServer } from "../support/scriptedServer.js";

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("Ctrl-C", () => {
  it("once: stops the current action, ends the session as cancelled and keeps it resumable", async () => {
    const home = await makeHome();
    const repo = await makeRepo({ "a.txt": "a\n" });
    server = await startScriptedServer([
      { toolCalls: [{ name: "write_file", args: { path: "a.txt", content: "b\n" } }] },
      { hang: true },
    ]);
    const { args, env } = modelFlags("openai", server);
    const child = spawnCairn(
      ["do", "change a.txt", ...args, "--cwd", repo, "--approval", "auto", "--output-format", "stream-json"],
      { home, env },
    );
    let stdout = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
    const started = Date.now();
    while (server.requests.length < 2 && Date.now() - started < 20_000)
      await new Promise((r) => setTimeout(r, 25));
    child.kill("SIGINT");
    expect(await exited).toBe(1);
    const result = streamEvents(stdout).find((e) => e.type === "result");
    expect(result).toMatchObject({ status: "cancelled", files_changed: ["a.txt"] });
    const listed = JSON.parse((await runCairn(["sessions", "--json"], { home })).stdout);
    expect(listed[0]).toMatchObject({ id: result?.session_id, status: "cancelled" });
  });
});
