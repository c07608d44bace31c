import { describe, expect, it } from "vitest";
import { z } from "zod";
import { prepareArguments } from "../../src/tools/args.js";

const schema = z.object({
  path: z.string(),
  limit: z.number().int().optional(),
  replace_all: z.boolean().optional(),
  paths: z.array(z.string()).optional(),
});

describe("tool-call argument repair and validation", () => {
  it.each([
    ["trailing comma", '{"path": "a.ts",}'],
    ["single quotes", "{'path': 'a.ts'}"],
    ["unquoted keys", "{path: 'a.ts'}"],
    ["a code fence", '```json\n{"path": "a.ts"}\n```'],
    ["truncated", '{"path": "a.ts"'],
    ["a comment", '{"path": "a.ts" /* the file */}'],
  ])("recovers arguments with %s", (_kind, raw) => {
    const result = prepareArguments(raw, schema);
    expect(result).toEqual({ ok: true, value: { path: "a.ts" }, repaired: true });
  });

  it("turns Python literals and numeric strings into the expected types", () => {
    const result = prepareArguments("{'path': 'a', 'replace_all': True, 'limit': '3'}", schema);
    expect(result).toEqual({ ok: true, value: { path: "a", replace_all: true, limit: 3 }, repaired: true });
  });

  it("unwraps double-encoded arguments and a lone string where a list was expected", () => {
    const result = prepareArguments(JSON.stringify(JSON.stringify({ path: "a", paths: "b" })), schema);
    expect(result).toEqual({ ok: true, value: { path: "a", paths: ["b"] }, repaired: true });
  });

  it("passes valid arguments untouched and drops fields the schema does not know", () => {
    expect(prepareArguments({ path: "a", extra: 1 }, schema)).toEqual({
      ok: true,
      value: { path: "a" },
      repaired: false,
    });
  });

  it("rejects what cannot be recovered, naming the field", () => {
    const missing = prepareArguments({ file: "a" }, schema);
    expect(missing.ok).toBe(false);
    // The words a person gets for a bad config, not zod's own.
    expect(!missing.ok && missing.message).toBe("invalid arguments: path: expected text (got nothing)");
    const wrong = prepareArguments({ path: "a", limit: "many" }, schema);
    expect(!wrong.ok && wrong.message).toBe('invalid arguments: limit: expected a number (got "many")');
  });
});

describe("JSON wrapped in prose", () => {
  it.each([
    'Here are the arguments: {"path": "a.ts"} as requested.',
    'Sure, here: {"path": "a.ts"}',
    '{"path": "a.ts"} and that is it',
  ])("takes the object out of the sentence around it: %s", (raw) => {
    expect(prepareArguments(raw, schema)).toEqual({ ok: true, value: { path: "a.ts" }, repaired: true });
  });
});

describe("arguments cut off mid-value", () => {
  it.each([
    ["inside a string", '{"command": "npm test -- --run '],
    ["inside a file's content", '{"path": "a.ts", "content": "export const a = 1;\\nexport const'],
    ["after a key", '{"path": "a.ts", "limit"'],
    ["after a colon", '{"path": "a.ts", "limit":'],
    ["after a comma", '{"path": "a.ts",'],
    ["on a number", '{"path": "a.ts", "limit": 12'],
  ])("are refused when cut %s, never run half-complete", (_where, raw) => {
    const result = prepareArguments(raw, schema);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.message).toMatch(/cut off/);
  });

  it("say what can be read of them, to name what the call was for, without running it", () => {
    const result = prepareArguments('{"path": "big.txt", "content": "aaaa', schema, "length");
    expect(result).toMatchObject({ ok: false, cut: { partial: { path: "big.txt", content: "aaaa" } } });
    expect(prepareArguments('{"path": "a.ts"', schema, "length")).toMatchObject({ ok: false, cut: {} });
  });

  it("are closed when only the closing brackets are missing", () => {
    expect(prepareArguments('{"path": "a.ts", "paths": ["b", "c"]', schema)).toEqual({
      ok: true,
      value: { path: "a.ts", paths: ["b", "c"] },
      repaired: true,
    });
  });
});

describe("null for a field", () => {
  it("means 'not given' for an optional field", () => {
    expect(prepareArguments({ path: "a", limit: null }, schema)).toEqual({
      ok: true,
      value: { path: "a" },
      repaired: true,
    });
  });

  it("is still refused for a required one", () => {
    const result = prepareArguments({ path: null }, schema);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.message).toMatch(/path/);
  });
});

describe("braces inside strings", () => {
  it("do not cut an object short when its closing brace is missing", () => {
    const globSchema = z.object({ pattern: z.string() });
    expect(prepareArguments('{"pattern":"**/*.{yml,yaml}"', globSchema)).toEqual({
      ok: true,
      value: { pattern: "**/*.{yml,yaml}" },
      repaired: true,
    });
  });
});

describe("arguments missing their closing brace, by how the model's output ended", () => {
  const edit = z.object({ path: z.string(), old_string: z.string(), new_string: z.string() });
  const unclosed = '{"path": "src/format.js", "old_string": "a", "new_string": "b",';

  it.each(["tool-calls", "stop"])(
    "are closed and run when the model ended the call itself (%s)",
    (reason) => {
      expect(prepareArguments(unclosed, edit, reason)).toEqual({
        ok: true,
        value: { path: "src/format.js", old_string: "a", new_string: "b" },
        repaired: true,
      });
      expect(prepareArguments('{"path": "a.ts", "limit": 12', schema, reason)).toMatchObject({
        ok: true,
        value: { path: "a.ts", limit: 12 },
      });
      expect(prepareArguments('{"path": "a.ts", "replace_all": true', schema, reason)).toMatchObject({
        ok: true,
        value: { path: "a.ts", replace_all: true },
      });
    },
  );

  it("are refused when the output hit its length limit, saying so", () => {
    for (const raw of [unclosed, '{"path": "src/format.js", "old_string": "a", "new_string": "b"']) {
      const result = prepareArguments(raw, edit, "length");
      expect(result.ok).toBe(false);
      expect(!result.ok && result.message).toMatch(/length limit \(finish reason "length"\)/);
    }
  });

  it.each([
    ["inside a string", '{"path": "a.ts", "content": "export const'],
    ["after a key", '{"path": "a.ts", "limit"'],
    ["on a literal cut short", '{"path": "a.ts", "replace_all": tru'],
    ["on a number cut short", '{"path": "a.ts", "limit": 1.'],
  ])("are refused when a value itself is cut (%s), however the output ended", (_where, raw) => {
    const result = prepareArguments(raw, schema, "tool-calls");
    expect(result.ok).toBe(false);
    expect(!result.ok && result.message).toMatch(/cut off/);
  });

  it("still need every required field", () => {
    const result = prepareArguments('{"path": "src/format.js", "old_string": "a",', edit, "tool-calls");
    expect(result.ok).toBe(false);
    expect(!result.ok && result.message).toMatch(/new_string/);
  });
});
