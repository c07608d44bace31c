import { readFileSync } from "node:fs";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { describe, expect, it } from "vitest";
import { countBounded, EXACT_CHARS, tokenizerPieces } from "../../src/context/tokens.js";

const SOURCE = readFileSync(new URL("../../src/agent/runTask.ts", import.meta.url), "utf8");

/** The longest run of spaces, or of anything but spaces, in `text`. */
function longestRun(text: string): number {
  return Math.max(0, ...(text.match(/\s+|\S+/g) ?? []).map((run) => run.length));
}

describe("the pieces the tokenizer is given", () => {
  it.each([
    ["source code", SOURCE.slice(0, 30_000)],
    ["one character repeated", "a".repeat(20_000)],
    ["spaces", " ".repeat(5_000)],
    ["emoji", "😀".repeat(3_000)],
    ["a minified line", "var a=1;function(){return b}".repeat(1_000)],
  ])("are the text, in order, with no long run: %s", (_name, text) => {
    const pieces = [...tokenizerPieces(text)];
    expect(pieces.join("")).toBe(text);
    expect(Math.max(...pieces.map(longestRun))).toBeLessThanOrEqual(128);
    expect(Math.max(...pieces.map((piece) => piece.length))).toBeLessThanOrEqual(4096);
    // No piece starts with the second half of a surrogate pair.
    expect(pieces.some((piece) => /^[\uDC00-\uDFFF]/.test(piece))).toBe(false);
  });
});

describe("countBounded", () => {
  it("counts ordinary text as the tokenizer does", async () => {
    const text = SOURCE.slice(0, EXACT_CHARS);
    const exact = countTokens(text);
    expect(Math.abs((await countBounded(countTokens, text)) - exact)).toBeLessThanOrEqual(exact * 0.005);
  });

  it("estimates a long text from samples, within a few per cent", async () => {
    const text = SOURCE.repeat(Math.ceil((4 * EXACT_CHARS) / SOURCE.length));
    const exact = countTokens(text);
    const counted: string[] = [];
    const estimate = await countBounded((piece) => {
      counted.push(piece);
      return countTokens(piece);
    }, text);
    expect(Math.abs(estimate - exact)).toBeLessThanOrEqual(exact * 0.03);
    expect(counted.join("").length).toBe(EXACT_CHARS);
  });

  it("counts a long run of one character as the tokenizer would, cut or not", async () => {
    // o200k makes 8 characters one token; counting the run whole would take seconds.
    expect(await countBounded(countTokens, "a".repeat(8 * 1024))).toBe(1024);
    expect(await countBounded(countTokens, "a".repeat(10 << 20))).toBe((10 << 20) / 8);
  });

  it("gives other work its turn and stops when cancelled", async () => {
    const controller = new AbortController();
    let pieces = 0;
    const slowCount = (piece: string) => {
      pieces++;
      // A piece that takes longer than a slice: the counter must yield after it.
      const until = performance.now() + 6;
      while (performance.now() < until);
      return piece.length;
    };
    let timerRan = false;
    setImmediate(() => {
      timerRan = true;
      controller.abort(new Error("stopped"));
    });
    await expect(countBounded(slowCount, "word ".repeat(20_000), controller.signal)).rejects.toThrow(
      "stopped",
    );
    expect(timerRan).toBe(true);
    expect(pieces).toBeLessThan(5);
  });
});
