import { afterEach, describe, expect, it } from "vitest";
import { type Format, makeHome, makeRepo, modelFlags, runCairn } from "../helpers/cli.js";
import type { RecordedRequest, ScriptedServer, ScriptedTurn } from "../support/scriptedServer.js";
import { startScriptedServer } from "../support/scriptedServer.js";

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/**
 * The prompt as the provider caches it: tools, system, then messages. Anthropic's breakpoint
 * markers move to the newest message each turn; they steer the cache and are not part of the
 * cached content, so they are left out of the comparison.
 */
function promptBytes(request: RecordedRequest): string {
  const { tools, system, messages } = request.body;
  return JSON.stringify([tools, system, messages], (key, value) =>
    key === "cache_control" ? undefined : value,
  );
}

/** How much of the previous request's prompt the next one repeats byte for byte from the start. */
function sharedPrefixShare(previous: string, next: string): number {
  let i = 0;
  while (i < previous.length && previous.charCodeAt(i) === next.charCodeAt(i)) i++;
  return i / previous.length;
}

async function twentyTurns(format: Format) {
  const files = Object.fromEntries(Array.from({ length: 19 }, (_, i) => [`f${i}.txt`, `file ${i}\n`]));
  const repo = await makeRepo(files);
  const turns: ScriptedTurn[] = [
    ...Object.keys(files).map((file, i) => ({
      ...(i === 0 ? { text: "Plan: read every file." } : {}),
      toolCalls: [{ name: "read_file", args: { path: file } }],
    })),
    { text: "All read." },
  ];
  server = await startScriptedServer(turns);
  const { args, env } = modelFlags(format, server);
  const run = await runCairn(["do", "read every file", ...args, "--cwd", repo, "--approval", "auto"], {
    home: await makeHome(),
    env,
  });
  expect(run.code, run.stderr).toBe(0);
  return server.requests;
}

describe("cache-friendly requests", () => {
  it.each(["openai", "anthropic"] as Format[])(
    "over %s, each of 20 requests begins with the whole previous one",
    async (format) => {
      const requests = await twentyTurns(format);
      expect(requests).toHaveLength(20);
      const shares = requests
        .slice(1)
        .map((request, i) =>
          sharedPrefixShare(promptBytes(requests[i] as RecordedRequest), promptBytes(request)),
        );
      const mean = shares.reduce((a, b) => a + b, 0) / shares.length;
      console.log(
        `${format}: shared prefix of consecutive requests: min ${Math.min(...shares).toFixed(4)}, mean ${mean.toFixed(4)}`,
      );
      expect(Math.min(...shares)).toBeGreaterThan(0.99);
    },
  );

  it("marks Anthropic cache breakpoints on the system prompt and the newest message", async () => {
    const requests = await twentyTurns("anthropic");
    const last = requests.at(-1) as RecordedRequest;
    expect(last.body.system.at(-1).cache_control).toEqual({ type: "ephemeral" });
    const lastMessage = last.body.messages.at(-1);
    expect(lastMessage.content.at(-1).cache_control).toEqual({ type: "ephemeral" });
    const marked = JSON.stringify(last.body.messages).match(/cache_control/g) ?? [];
    expect(marked).toHaveLength(1);
  });
});
