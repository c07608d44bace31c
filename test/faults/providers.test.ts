import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Format } from "../helpers/cli.js";
import { makeRepo } from "../helpers/cli.js";
import { scaled } from "../helpers/timeScale.js";
import type { ScriptedTurn } from "../support/scriptedServer.js";
import { type CliEvent, closeServers, runFaulty } from "./harness.js";

afterEach(closeServers);

/** A tool call with a side effect that shows how often it ran: one line per run. */
const record: ScriptedTurn = {
  text: "Recording the step.",
  toolCalls: [{ name: "run_command", args: { command: "echo ran >> runs.log" } }],
};
const done: ScriptedTurn = { text: "Recorded the step once." };
/** The run's check: the step was recorded exactly once, so a retry never ran it twice. */
const ranOnce = { verify: 'test "$(cat runs.log)" = ran' };

async function runs(repo: string): Promise<string[]> {
  const log = await readFile(path.join(repo, "runs.log"), "utf8").catch(() => "");
  return log.split("\n").filter(Boolean);
}

function ofType(events: CliEvent[], type: string): CliEvent[] {
  return events.filter((event) => event.type === type);
}

/** What the person was shown as the model's streamed text, all deltas joined. */
function streamed(events: CliEvent[]): string {
  return ofType(events, "message.delta")
    .map((event) => String(event.text))
    .join("");
}

// Only the hang needs a short request timeout, and it is stretched by the load: a bound of 800 ms on
// every case made an answer that was merely slow on a busy machine a third retry.
const faults: Array<[name: string, fault: ScriptedTurn, reason: RegExp, config?: Record<string, unknown>]> = [
  ["a 500", { error: { status: 500 } }, /HTTP 500/],
  ["a 503", { error: { status: 503 } }, /HTTP 503/],
  ["a connection reset", { resetConnection: true }, /connection lost|fetch failed|other side closed/i],
  [
    "a hang past the request timeout",
    { hang: true },
    /no data within the request timeout/,
    { request_timeout_ms: scaled(800) },
  ],
];

describe("a flaky provider", () => {
  it.each(faults)(
    "%s before and after a tool call: the run completes and the tool runs once",
    async (_, fault, reason, config) => {
      const repo = await makeRepo({});
      const run = await runFaulty(repo, "record the step", [fault, record, fault, done], {
        config: { ...config, ...ranOnce },
      });
      expect(run.code, run.stderr).toBe(0);
      expect(run.result).toMatchObject({ status: "completed", reason: "checks_passed" });
      expect(await runs(repo)).toEqual(["ran"]);
      expect(ofType(run.events, "tool.call")).toHaveLength(1);
      const retries = ofType(run.events, "retry");
      expect(retries).toHaveLength(2);
      for (const retry of retries) expect(String(retry.reason)).toMatch(reason);
      expect(run.server.requests).toHaveLength(4);
    },
  );

  it("waits as long as a 429's Retry-After says, then completes", async () => {
    const repo = await makeRepo({});
    const limited: ScriptedTurn = { error: { status: 429, headers: { "retry-after": "1" } } };
    const started = Date.now();
    const run = await runFaulty(repo, "record the step", [limited, record, done], { config: ranOnce });
    expect(run.code, run.stderr).toBe(0);
    expect(ofType(run.events, "retry")).toEqual([
      expect.objectContaining({ attempt: 1, delay_ms: 1000, reason: "HTTP 429" }),
    ]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(await runs(repo)).toEqual(["ran"]);
  });

  it("gives up after the configured retries, exit 1, saying the provider is failing", async () => {
    const repo = await makeRepo({});
    const down: ScriptedTurn = { error: { status: 503 } };
    const run = await runFaulty(repo, "record the step", [down, down, down], {
      config: { retries: { max: 2, base_ms: 10 } },
    });
    expect(run.code).toBe(1);
    expect(run.result?.status).toBe("failed");
    expect(String(run.result?.summary)).toMatch(
      /after 3 attempts[\s\S]*is failing \(HTTP 503\): try again later/,
    );
    expect(run.server.requests).toHaveLength(3);
  });
});

describe("a model server that stops sending", () => {
  it("mid-answer, on every attempt: the call ends at the idle bound, saying so", async () => {
    const repo = await makeRepo({});
    const stalled: ScriptedTurn = { text: "Starting", endless: { chunk: ".", everyMs: 60_000 } };
    const run = await runFaulty(repo, "record the step", [stalled, stalled], {
      config: { request_timeout_ms: 500, retries: { max: 1, base_ms: 10 } },
    });
    expect(run.code).toBe(1);
    expect(run.result?.status).toBe("failed");
    const summary = String(run.result?.summary);
    expect(summary).toMatch(/after 2 attempts: no data for 500ms/);
    expect(summary).toMatch(/openai stopped sending: .* raise request_timeout_ms/);
  });
});

describe.each<Format>(["openai", "anthropic", "ollama"])(
  "a stream cut off over the %s wire format",
  (format) => {
    it("mid-text: retried, and the text already shown is not shown again", async () => {
      const repo = await makeRepo({});
      const run = await runFaulty(
        repo,
        "record the step",
        [{ ...record, cut: "text" }, record, { ...done, cut: "text" }, done],
        { format, config: ranOnce },
      );
      expect(run.code, run.stderr).toBe(0);
      expect(streamed(run.events)).toBe("Recording the step.Recorded the step once.");
      expect(await runs(repo)).toEqual(["ran"]);
      const retries = ofType(run.events, "retry");
      expect(retries).toHaveLength(2);
      for (const retry of retries) expect(String(retry.reason)).toMatch(/stream cut off|connection lost/);
    });

    it("mid-text, when the retry says something else: marked as a restart, not spliced", async () => {
      const repo = await makeRepo({});
      const run = await runFaulty(
        repo,
        "say something",
        [{ text: "The first version of the answer.", cut: "text" }, { text: "A different answer." }],
        { format },
      );
      expect(run.code, run.stderr).toBe(0);
      const shown = streamed(run.events);
      expect(shown).toMatch(/\[the answer restarts after a retry\]\nA different answer\.$/);
      const before = shown.split("\n[the answer restarts")[0] ?? "";
      expect("The first version of the answer.".startsWith(before)).toBe(true);
    });

    it("mid-tool-call: the half-received call never runs; the retried one runs once", async () => {
      const repo = await makeRepo({});
      const run = await runFaulty(repo, "record the step", [{ ...record, cut: "tool" }, record, done], {
        format,
        config: ranOnce,
      });
      expect(run.code, run.stderr).toBe(0);
      expect(await runs(repo)).toEqual(["ran"]);
      expect(ofType(run.events, "tool.call")).toHaveLength(1);
      expect(ofType(run.events, "retry")).toHaveLength(1);
    });
  },
);

describe("a provider that rejects the configuration", () => {
  const cases: Array<[name: string, turn: ScriptedTurn, hint: RegExp]> = [
    ["a 401 (bad key)", { error: { status: 401 } }, /openai rejected the API key: check OPENAI_API_KEY/],
    [
      "a 404 (unknown model)",
      {
        error: {
          status: 404,
          body: {
            error: {
              message: "The model `gpt-4o` does not exist",
              type: "invalid_request_error",
              code: "model_not_found",
            },
          },
        },
      },
      /openai does not know the model in openai\/gpt-4o: check the name/,
    ],
    [
      "a 400 naming a bad model",
      {
        error: {
          status: 400,
          body: { error: { message: "invalid model ID", type: "invalid_request_error" } },
        },
      },
      /check the model name \(openai\/gpt-4o\)/,
    ],
  ];

  it.each(cases)("%s: stops at once, exit 2, saying what to fix", async (_, turn, hint) => {
    const repo = await makeRepo({});
    const run = await runFaulty(repo, "record the step", [turn, record, done], {
      args: ["--output-format", "json"],
    });
    expect(run.code).toBe(2);
    const result = JSON.parse(run.stdout) as { status: string; summary: string };
    expect(result.status).toBe("failed");
    expect(result.summary).toMatch(hint);
    expect(run.server.requests).toHaveLength(1);
    expect(await runs(repo)).toEqual([]);
  });
});

describe("a model server that fails inside its stream", () => {
  it.each<Format>(["openai", "anthropic"])(
    "over %s: retried, and when it keeps failing, the provider's own words are reported",
    async (format) => {
      const repo = await makeRepo({});
      const failing: ScriptedTurn = {
        text: "Starting",
        streamError: { message: "Overloaded: the model is busy", type: "overloaded_error" },
      };
      const run = await runFaulty(repo, "record the step", [failing, record, failing, failing, failing], {
        format,
        config: { retries: { max: 2, base_ms: 10 } },
      });
      expect(run.code).toBe(1);
      // The first failure was retried and the tool ran; the three after it ended the session.
      expect(await runs(repo)).toEqual(["ran"]);
      expect(ofType(run.events, "retry")[0]?.reason).toMatch(
        /the server reported: Overloaded: the model is busy/,
      );
      expect(run.result?.status).toBe("failed");
      const summary = String(run.result?.summary);
      expect(summary).toMatch(/after 3 attempts: Overloaded: the model is busy/);
      expect(summary).toMatch(/reported an error while answering/);
      expect(summary).not.toMatch(/could not reach|check the network/);
    },
  );
});

describe("a model server that reports no usage", () => {
  it("is counted by estimate, marked as such, and --max-tokens stops it", async () => {
    const repo = await makeRepo({});
    const silent = (turn: ScriptedTurn): ScriptedTurn => ({ ...turn, usage: "none" });
    const run = await runFaulty(repo, "record the step", [silent(record), silent(record), silent(done)], {
      args: ["--max-tokens", "1000"],
    });
    const usage = ofType(run.events, "usage");
    expect(usage.length).toBeGreaterThan(0);
    for (const call of usage) {
      expect(call).toMatchObject({ estimated: true });
      expect(Number(call.input_tokens)).toBeGreaterThan(100);
      expect(Number(call.output_tokens)).toBeGreaterThan(0);
    }
    expect(ofType(run.events, "error").map((e) => e.message)).toContainEqual(
      expect.stringMatching(/reported no token usage: its calls are counted by estimate/),
    );
    // The system prompt and tools alone are over a thousand tokens: the first call reaches the cap.
    expect(run.result?.status).toBe("budget_exceeded");
    expect(run.code).toBe(1);
  });
});

describe("a model that never stops answering", () => {
  it.each<[Format, string]>([
    ["openai", "max_tokens"],
    ["ollama", "num_predict"],
  ])("over %s: the answer ends at the output cap, said so, without --timeout", async (format, field) => {
    const repo = await makeRepo({});
    const endless: ScriptedTurn = { text: "Thinking about it:", endless: { chunk: "and again " } };
    const run = await runFaulty(repo, "say something", [endless, done], {
      format,
      config: { max_output_tokens: 2_000 },
    });
    expect(ofType(run.events, "error").map((e) => e.message)).toContainEqual(
      expect.stringMatching(/went past the output cap of 2000 tokens and was cut off there/),
    );
    const shown = streamed(run.events);
    expect(shown.startsWith("Thinking about it:and again ")).toBe(true);
    expect(shown.length).toBeLessThan(2_000 * 8 + 1_000);
    const body = run.server.requests[0]?.body;
    // A local server is sent the cap; a hosted one applies its model's own, and is bounded all the same.
    const sent = format === "ollama" ? body?.options?.[field] : body?.[field];
    expect(sent).toBe(format === "ollama" ? 2_000 : undefined);
  });

  it("in a tool call's arguments: the cut call is refused, the model told, and the ending is not a success", async () => {
    const repo = await makeRepo({});
    const endless: ScriptedTurn = {
      toolCalls: [{ name: "write_file", args: '{"path": "out.txt", "content": "' }],
      endless: { chunk: "lorem ipsum ", in: "tool" },
    };
    // The model then says it wrote the file, as models do: nothing of it is on disk.
    const claims: ScriptedTurn = { text: "I wrote out.txt." };
    const run = await runFaulty(repo, "write a file", [endless, claims], {
      format: "anthropic",
      config: { max_output_tokens: 1_000 },
    });
    const results = ofType(run.events, "tool.result");
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ tool: "write_file", ok: false });
    expect(String(results[0]?.output)).toMatch(/cut off|length limit|output limit/i);
    // The turn says what was cut.
    expect(ofType(run.events, "error").map((e) => e.message)).toContainEqual(
      expect.stringMatching(/cut off there, in the middle of a write_file call, which does not run/),
    );
    // The model's next request carries the refusal.
    expect(run.server.requests[1]?.rawBody).toMatch(/cut off|length limit|output limit/i);
    expect(run.code, run.stderr).toBe(1);
    expect(run.result).toMatchObject({ status: "failed", reason: "output_cap" });
    expect(String(run.result?.summary)).toMatch(
      /^Not done: the model's answer reached its length limit in the middle of write_file out\.txt, so that call never ran and nothing of it is on disk, whatever the answer says\. Raise max_output_tokens \(1000 tokens here; docs\/limits\.md\)/,
    );
    expect(String(run.result?.summary)).toContain("I wrote out.txt.");
  });

  it("a cut-off write the model then makes in parts is made good: the ending is that of the change", async () => {
    const repo = await makeRepo({});
    const endless: ScriptedTurn = {
      toolCalls: [{ name: "write_file", args: '{"path": "out.txt", "content": "' }],
      endless: { chunk: "lorem ipsum ", in: "tool" },
    };
    const parts: ScriptedTurn[] = [
      { toolCalls: [{ name: "write_file", args: { path: "out.txt", content: "lorem ipsum\n" } }] },
      { toolCalls: [{ name: "append_file", args: { path: "out.txt", content: "lorem ipsum\n" } }] },
      { text: "I wrote out.txt in two parts." },
    ];
    const run = await runFaulty(repo, "write a file", [endless, ...parts], {
      format: "anthropic",
      config: { max_output_tokens: 1_000 },
    });
    expect(run.result).toMatchObject({ status: "unverified", reason: "unchecked" });
    expect(await readFile(path.join(repo, "out.txt"), "utf8")).toBe("lorem ipsum\nlorem ipsum\n");
  });
});
