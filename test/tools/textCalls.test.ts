import { describe, expect, it } from "vitest";
import { prepareArguments } from "../../src/tools/args.js";
import { readReply } from "../../src/tools/textCalls/reply.js";
import { CORPUS, type CorpusCase, TOOLS } from "./textCallCorpus.js";

const isTool = (name: string) => Object.hasOwn(TOOLS, name);

/** What cairn does with a reply: the calls it makes, with their arguments after validation. */
function decide(item: CorpusCase) {
  const read = readReply(item.reply, { isTool, fencedCalls: item.textMode ?? false, bareJson: true });
  const calls = read.calls.map((call) => {
    const schema = TOOLS[call.name];
    const prepared = schema ? prepareArguments(call.input, schema, "stop") : undefined;
    return { name: call.name, args: prepared?.ok ? prepared.value : { invalid: prepared } };
  });
  return { ...read, calls };
}

describe("the text tool-call corpus (vLLM's, llama.cpp's and Ollama's parser tests)", () => {
  it.each(CORPUS.map((item) => [`${item.family}: ${item.source}`, item] as const))("%s", (_, item) => {
    const decided = decide(item);
    expect(decided.calls).toEqual(item.calls);
    expect(decided.unexecuted !== undefined).toBe(item.unexecuted ?? false);
  });

  it("covers every family with positive and negative cases", () => {
    const families = new Set(CORPUS.map((item) => item.family));
    for (const family of families) {
      const cases = CORPUS.filter((item) => item.family === family);
      expect(
        cases.some((item) => item.calls.length > 0),
        family,
      ).toBe(true);
      expect(
        cases.some((item) => item.calls.length === 0),
        family,
      ).toBe(true);
    }
    expect([...families].sort()).toEqual(
      ["deepseek", "fenced", "granite", "hermes", "llama", "mistral", "qwen3-coder"].sort(),
    );
  });
});

describe("reading tool calls from a reply", () => {
  it("keeps the prose around the calls and takes out the call and its wrapper tokens", () => {
    const read = readReply(
      'Reading it now.\n<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"location":"Paris"}<｜tool▁call▁end｜><｜tool▁calls▁end｜><｜end▁of▁sentence｜>',
      { isTool, fencedCalls: false, bareJson: true },
    );
    expect(read.prose).toBe("Reading it now.");
    expect(read.calls).toEqual([{ name: "get_weather", input: { location: "Paris" }, family: "deepseek" }]);
  });

  it("passes arguments it cannot read on as text, for the repair and validation native calls get", () => {
    const read = readReply('[TOOL_CALLS]get_weather[ARGS]{"location": "Paris",', {
      isTool,
      fencedCalls: false,
      bareJson: true,
    });
    expect(read.calls).toEqual([]);
    expect(read.unexecuted).toMatch(/\[TOOL_CALLS\]/);
    const broken = readReply(
      "<｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{'location': 'Paris',}<｜tool▁call▁end｜>",
      { isTool, fencedCalls: false, bareJson: true },
    );
    expect(broken.calls[0]?.input).toEqual({ location: "Paris" });
  });

  it("makes a call to a tool that does not exist when it is written in a family's syntax, so the model hears there is none", () => {
    const read = readReply('<tool_call>{"name": "no_such_tool", "arguments": {}}</tool_call>', {
      isTool,
      fencedCalls: false,
      bareJson: true,
    });
    expect(read.calls.map((call) => call.name)).toEqual(["no_such_tool"]);
  });

  it("finds a call after a fence that quotes code with backticks in it", () => {
    const reply =
      'The file has:\n```js\nconst s = `x`;\n```\n<tool_call>{"name": "get_conditions", "arguments": {"location": "`Oslo`"}}</tool_call>';
    expect(readReply(reply, { isTool, fencedCalls: false, bareJson: true }).calls).toEqual([
      { name: "get_conditions", input: { location: "`Oslo`" }, family: "hermes" },
    ]);
  });

  it("reads a whole-reply JSON call only from a local server or a text-mode model, not from a hosted API", () => {
    const json = '{"name": "get_conditions", "arguments": {"location": "Oslo"}}';
    const fenced = `\`\`\`json\n${json}\n\`\`\``;
    for (const reply of [json, fenced]) {
      expect(readReply(reply, { isTool, fencedCalls: false, bareJson: true }).calls).toHaveLength(1);
      expect(readReply(reply, { isTool, fencedCalls: false, bareJson: false })).toEqual({
        prose: reply,
        calls: [],
      });
    }
    const marked = `<tool_call>${json}</tool_call>`;
    expect(readReply(marked, { isTool, fencedCalls: false, bareJson: false }).calls).toHaveLength(1);
  });

  it("does not make a call written inside the model's reasoning", () => {
    const reply =
      '<think>I could call <tool_call>{"name": "get_conditions", "arguments": {}}</tool_call> but I know it.</think>It is sunny.';
    const read = readReply(reply, { isTool, fencedCalls: false, bareJson: true });
    expect(read).toMatchObject({ calls: [] });
    expect(read.unexecuted).toBeUndefined();
  });
});
