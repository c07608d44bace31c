import { describe, expect, it } from "vitest";
import { z } from "zod";
import { describeIssue } from "../../src/platform/issues.js";

/** The one message a value that fails `schema` gets. */
function messageFor(schema: z.ZodType, value: unknown): string {
  const parsed = schema.safeParse(value, { reportInput: true });
  if (parsed.success) throw new Error("expected the value to fail");
  return describeIssue(parsed.error.issues[0]!);
}

describe("a string that does not fit its pattern", () => {
  it("is told what the schema says the text should be, and what came", () => {
    const name = z.string().regex(/^[a-z]+$/, "expected lowercase letters, such as build");
    expect(messageFor(name, "Build!")).toBe('expected lowercase letters, such as build (got "Build!")');
  });

  it("is told the pattern where the schema gave no words for it, never 'a regex'", () => {
    expect(messageFor(z.string().regex(/^v\d+$/), "1.2")).toBe(
      'expected text matching /^v\\d+$/ (got "1.2")',
    );
  });
});
