import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SCHEMA_NAMES } from "../../src/events/jsonSchema.js";
import { makeHome, makeRepo, modelFlags, runCairn } from "../helpers/cli.js";
import { protocolValidator } from "../helpers/protocol.js";
import { FIX_SUM_RUN, JS_REPO, runScript } from "../helpers/runScript.js";
import { type ScriptedServer, startScriptedServer } from "../support/scriptedServer.js";

const published = async (name: string) =>
  JSON.parse(await readFile(path.join("docs", "schema", `${name}.schema.json`), "utf8")) as object;

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("the published protocol", () => {
  it("cairn schema prints exactly the JSON Schemas docs/schema publishes (npm run schema writes them)", async () => {
    const home = await makeHome();
    for (const name of SCHEMA_NAMES) {
      const run = await runCairn(["schema", name], { home });
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout), `docs/schema/${name}.schema.json is out of date`).toEqual(
        await published(name),
      );
    }
    const wrong = await runCairn(["schema", "everything"], { home });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain("events, result, ops");
  });

  it("every stream-json line of a whole run validates against the published schema, the result line last", async () => {
    server = await startScriptedServer(runScript(FIX_SUM_RUN));
    const repo = await makeRepo(JS_REPO);
    const { args, env } = modelFlags("openai", server);
    const run = await runCairn(
      ["run", "the sum test fails, fix it", ...args, "--cwd", repo, "--approval", "auto"].concat([
        "--output-format",
        "stream-json",
      ]),
      { home: await makeHome(), env, timeoutMs: 60_000 },
    );
    expect(run.code, run.stderr).toBe(0);
    const validate = protocolValidator("events", await published("events"));
    const lines = run.stdout.trim().split("\n");
    const problems = lines.map((line) => validate(JSON.parse(line))).filter(Boolean);
    expect(problems).toEqual([]);
    const types = lines.map((line) => (JSON.parse(line) as { type: string }).type);
    expect(types.at(-1)).toBe("result");
    expect(types).toEqual(expect.arrayContaining(["session.started", "tool.call", "validation", "review"]));
    const validateResult = protocolValidator("result", await published("result"));
    const { type: _, ...result } = JSON.parse(lines.at(-1) ?? "{}");
    expect(validateResult(result)).toBeUndefined();
  });

  it("rejects what does not fit: an unknown event type, a missing field, a field no event has", () => {
    const validate = protocolValidator("events");
    const stamp = { session_id: "s", seq: 1, ts: "2026-01-01T00:00:00.000Z" };
    expect(validate({ ...stamp, type: "message", text: "hi" })).toBeUndefined();
    expect(validate({ ...stamp, type: "messages", text: "hi" })).toBeDefined();
    expect(validate({ ...stamp, type: "message" })).toBeDefined();
    expect(validate({ ...stamp, type: "message", text: "hi", colour: "red" })).toBeDefined();
  });
});
