import { rm } from "node:fs/promises";
import { afterEach, describe, expect, it } from "vitest";
import { makeHome, makeRepo, modelFlags, runCairn, spawnCairn, streamEvents } from "../helpers/cli.js";
import { type ScriptedServer, startScriptedServer } from "../support/scriptedServer.js";

let server: ScriptedServer | undefined;
const made: string[] = [];
afterEach(async () => {
  await server?.close();
  server = undefined;
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A folder the test removes when it ends. */
async function temporary(make: Promise<string>): Promise<string> {
  const dir = await make;
  made.push(dir);
  return dir;
}

/** `cairn do` on a model that never answers, started as a user would and waited on until it asked. */
async function hangingDo(format: string) {
  const repo = await temporary(makeRepo({ "a.txt": "a\n" }));
  server = await startScriptedServer([{ hang: true }]);
  const { args, env } = modelFlags("openai", server);
  const child = spawnCairn(
    ["do", "change a.txt", ...args, "--cwd", repo, "--approval", "auto", "--output-format", format],
    { home: await temporary(makeHome()), env },
  );
  let stdout = "";
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
  });
  let stderr = "";
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
  const started = Date.now();
  while (server.requests.length < 1 && Date.now() - started < 20_000)
    await new Promise((r) => setTimeout(r, 25));
  return { child, exited, output: () => ({ stdout, stderr }) };
}

describe("SIGTERM and SIGHUP", () => {
  it("end a session as cancelled with exit 1, in every output format", { timeout: 60_000 }, async () => {
    for (const [signal, format] of [
      ["SIGTERM", "json"],
      ["SIGHUP", "text"],
    ] as const) {
      const { child, exited, output } = await hangingDo(format);
      child.kill(signal);
      expect(await exited).toBe(1);
      if (format === "json") {
        expect(JSON.parse(output().stdout)).toMatchObject({ status: "cancelled", reason: "interrupted" });
      } else {
        expect(output().stderr).toMatch(/cancelled · /);
      }
      await server?.close();
      server = undefined;
    }
  });
});

describe("Ctrl-C", () => {
  it("once: stops the current action, ends the session as cancelled and keeps it resumable", async () => {
    const home = await temporary(makeHome());
    const repo = await temporary(makeRepo({ "a.txt": "a\n" }));
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
