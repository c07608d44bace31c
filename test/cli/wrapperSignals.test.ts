import { afterEach, describe, expect, it } from "vitest";
import { makeHome, makeRepo, modelFlags, olderNode, startCairn, streamEvents } from "../helpers/cli.js";
import { fileTimeouts, scaled } from "../helpers/timeScale.js";
import { until } from "../helpers/wait.js";
import { type ScriptedServer, startScriptedServer } from "../support/scriptedServer.js";

fileTimeouts(60_000);

const oldNode = olderNode();

let server: ScriptedServer | undefined;
const groups: number[] = [];
afterEach(async () => {
  // Whatever a failing test left running: the wrapper's whole group, cairn on Node 22 with it.
  for (const pid of groups.splice(0)) {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // Gone already, as it should be.
    }
  }
  await server?.close();
  server = undefined;
});

/** cairn started as a user with Node 20 first on PATH starts it: through bin/cairn.js's restart on Node 22. */
async function startWrapped(args: string[], env: Record<string, string> = {}) {
  const home = await makeHome();
  const started = startCairn(args, { home, env, node: oldNode as string, detached: true });
  groups.push(started.child.pid as number);
  return started;
}

/** Resolves with the exit code, or with "still running" after `ms` stretched by the load. */
function within(exited: Promise<number | null>, ms: number): Promise<number | null | "still running"> {
  return Promise.race([
    exited,
    new Promise<"still running">((r) => setTimeout(() => r("still running"), scaled(ms))),
  ]);
}

describe.skipIf(!oldNode)("signals through the wrapper on an older Node", () => {
  it("SIGTERM to the wrapper ends a run as cancelled, exit 1", async () => {
    const repo = await makeRepo({ "a.txt": "a\n" });
    server = await startScriptedServer([{ hang: true }]);
    const { args, env } = modelFlags("openai", server);
    const { child, output, exited } = await startWrapped(
      ["run", "change a.txt", ...args, "--cwd", repo, "--approval", "auto", "--output-format", "stream-json"],
      env,
    );
    await until("the model to be asked", () => (server?.requests.length ?? 0) > 0, 30_000);
    child.kill("SIGTERM");
    expect(await within(exited, 20_000)).toBe(1);
    const result = streamEvents(output.stdout).find((e) => e.type === "result");
    expect(result).toMatchObject({ status: "cancelled", reason: "interrupted" });
    expect(String(result?.summary)).toContain("SIGTERM");
  });

  it("Ctrl-C in the terminal, which reaches both processes, is one interrupt: the run ends cancelled, exit 1", async () => {
    const repo = await makeRepo({ "a.txt": "a\n" });
    server = await startScriptedServer([{ hang: true }]);
    const { args, env } = modelFlags("openai", server);
    const { child, output, exited } = await startWrapped(
      ["do", "change a.txt", ...args, "--cwd", repo, "--approval", "auto", "--output-format", "stream-json"],
      env,
    );
    await until("the model to be asked", () => (server?.requests.length ?? 0) > 0, 30_000);
    // As a terminal sends it: to the whole foreground process group, the wrapper and cairn alike.
    process.kill(-(child.pid as number), "SIGINT");
    // Two would have been "Ctrl-C twice": an exit at once (130) with no result.
    expect(await within(exited, 20_000)).toBe(1);
    expect(streamEvents(output.stdout).find((e) => e.type === "result")).toMatchObject({
      status: "cancelled",
    });
  });

  it("SIGTERM to the wrapper stops cairn serve", async () => {
    const repo = await makeRepo({ "a.txt": "a\n" });
    const { child, output, exited } = await startWrapped(["serve", "--port", "0", "--cwd", repo]);
    await until("the server to listen", () => /cairn serve: (http:\S+)/.test(output.stdout), 30_000);
    const url = /cairn serve: (http:\S+)/.exec(output.stdout)?.[1] as string;
    // Listening: it answers (the token in the URL is for the browser's first visit).
    await expect(fetch(url)).resolves.toBeInstanceOf(Response);
    child.kill("SIGTERM");
    expect(await within(exited, 20_000)).toBe(0);
    await expect(fetch(url)).rejects.toThrow();
  });
});
