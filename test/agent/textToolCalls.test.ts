import { afterEach, describe, expect, it } from "vitest";
import { closeAll, hostedConversation } from "../helpers/session.js";
import type { ScriptedTurn } from "../support/scriptedServer.js";

afterEach(closeAll);

/** A `cairn do` over Ollama's wire format, the model answering with `script`. */
async function ask(script: ScriptedTurn[], task = "what do the notes say?") {
  const hosted = await hostedConversation(script, {
    format: "ollama",
    approval: "auto",
    mode: "do",
    files: { "notes.txt": "first\nhello\nthird\n" },
  });
  const outcome = await hosted.conversation.submit({ type: "user_input", mode: "do", text: task });
  const calls = hosted.events.filter((event) => event.type === "tool.call");
  const results = hosted.events.filter((event) => event.type === "tool.result");
  return { ...hosted, outcome, calls, results };
}

const READ = { path: "notes.txt" };

/** One call per family, as a model whose server missed it writes it, to cairn's read_file. */
const WRITTEN: Array<[string, string, Record<string, unknown>]> = [
  [
    "Hermes / Qwen2.5",
    'Let me read it.\n<tool_call>\n{"name": "read_file", "arguments": {"path": "notes.txt"}}\n</tool_call>',
    READ,
  ],
  [
    "Qwen3-Coder (a typed parameter)",
    "<tool_call>\n<function=read_file>\n<parameter=path>\nnotes.txt\n</parameter>\n<parameter=offset>\n2\n</parameter>\n</function>\n</tool_call>",
    { path: "notes.txt", offset: 2 },
  ],
  ["Mistral", '[TOOL_CALLS]read_file[ARGS]{"path": "notes.txt"}', READ],
  ["Llama 3.x", '{"name": "read_file", "parameters": {"path": "notes.txt"}}<|eot_id|>', READ],
  [
    "DeepSeek",
    '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>read_file<｜tool▁sep｜>{"path":"notes.txt"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
    READ,
  ],
  ["Granite", '<|tool_call|>[{"name": "read_file", "arguments": {"path": "notes.txt"}}]', READ],
  ["cairn's fenced form", '```json\n{"tool": "read_file", "arguments": {"path": "notes.txt"}}\n```', READ],
];

describe("tool calls written as text, without tool_calls: text", () => {
  it.each(WRITTEN)("makes a %s call with its exact arguments, as a native one", async (_, text, args) => {
    const { outcome, calls, results, server } = await ask([{ text }, { text: "The notes say hello." }]);
    expect(calls.map((call) => [call.tool, call.args])).toEqual([["read_file", args]]);
    expect(results.map((result) => result.ok)).toEqual([true]);
    // The result went back to the model, as a tool message on Ollama's wire.
    const sent = JSON.stringify(server.requests[1]?.body.messages);
    expect(sent).toContain("hello");
    expect(sent).toContain('"role":"tool"');
    expect(outcome?.result).toMatchObject({ status: "completed", summary: "The notes say hello." });
  });

  it("takes a call quoted in a code block as the answer, making nothing", async () => {
    const text =
      'Qwen writes a call like this:\n\n```xml\n<tool_call>{"name": "read_file", "arguments": {"path": "notes.txt"}}</tool_call>\n```';
    const { outcome, calls, server } = await ask([{ text }], "show me how Qwen writes a tool call");
    expect(calls).toEqual([]);
    expect(server.requests).toHaveLength(1);
    expect(outcome?.result).toMatchObject({ status: "completed", summary: text });
  });

  it("asks again when a call is followed by more text, and does not end with it as the answer", async () => {
    const { outcome, calls, server, events } = await ask([
      {
        text: 'I will call <tool_call>{"name": "read_file", "arguments": {"path": "notes.txt"}}</tool_call> and then tell you.',
      },
      { text: '<tool_call>{"name": "read_file", "arguments": {"path": "notes.txt"}}</tool_call>' },
      { text: "The notes say hello." },
    ]);
    expect(calls.map((call) => call.args)).toEqual([READ]);
    expect(JSON.stringify(server.requests[1]?.body.messages)).toContain("was not made");
    expect(
      events.some((event) => event.type === "error" && !event.fatal && /not made/.test(event.message)),
    ).toBe(true);
    expect(outcome?.result.status).toBe("completed");
  });

  it("fails, never completes, when the model keeps writing calls that cannot be made", async () => {
    const unmade = {
      text: '[TOOL_CALLS] [{"name": "read_file", "arguments": {"path": "notes.txt"}}] and more',
    };
    const { outcome, calls } = await ask([unmade, unmade, unmade, unmade, unmade]);
    expect(calls).toEqual([]);
    expect(outcome?.result).toMatchObject({ status: "failed", reason: "bad_model_output" });
    expect(outcome?.exitCode).not.toBe(0);
  });
});

describe("a call written as text and cut off by the length limit", () => {
  it("is not made, and the model is told to write the text in parts", async () => {
    const { calls, server } = await ask([
      {
        text: '<tool_call>{"name": "write_file", "arguments": {"path": "out.txt", "content": "lorem',
        finish: "length",
      },
      { text: "I could not finish the file." },
    ]);
    expect(calls).toEqual([]);
    expect(JSON.stringify(server.requests[1]?.body.messages)).toContain("write a long text in parts");
  });
});
