import { describe, expect, it } from "vitest";
import { HeadTailBuffer, truncateHeadTail } from "../../src/platform/truncate.js";

const MARKER = /^\.\.\. \[(\d+) lines \/ (\d+) bytes cut\] \.\.\.$/m;

function numberedLines(count: number): string {
  return Array.from({ length: count }, (_, index) => `line ${index + 1}`)
    .join("\n")
    .concat("\n");
}

describe("truncateHeadTail", () => {
  it("leaves short text alone", () => {
    const result = truncateHeadTail("hello\nworld\n");
    expect(result).toEqual({
      text: "hello\nworld\n",
      truncated: false,
      total_bytes: 12,
      cut_bytes: 0,
      cut_lines: 0,
    });
  });

  it("gives text that fits as the streamed buffer does, up to the limit and past it by a byte", () => {
    const limits = { headBytes: 20, tailBytes: 20 };
    const streamed = (text: string) => {
      const buffer = new HeadTailBuffer(limits);
      buffer.push(text);
      return buffer.finish();
    };
    // 40 bytes: three-byte characters, a lone surrogate (as U+FFFD, three bytes), newlines.
    const fits = "é€\ud800 line\nöne\ntwo€€ three!!!!!\n";
    expect(Buffer.byteLength(fits)).toBe(40);
    expect(truncateHeadTail(fits, limits)).toEqual(streamed(fits));
    expect(truncateHeadTail(fits, limits).text).toContain("\ufffd");
    expect(truncateHeadTail(`${fits}x`, limits)).toEqual(streamed(`${fits}x`));
    expect(truncateHeadTail(`${fits}x`, limits).truncated).toBe(true);
  });

  it("keeps whole lines from the start and the end, and marks the cut with exact counts", () => {
    const text = numberedLines(10_000);
    const result = truncateHeadTail(text, { headBytes: 100, tailBytes: 100 });
    expect(result.truncated).toBe(true);
    expect(result.text.startsWith("line 1\nline 2\n")).toBe(true);
    expect(result.text.endsWith("line 9999\nline 10000\n")).toBe(true);
    const [head, tail] = result.text.split(MARKER.exec(result.text)![0]);
    const kept = `${head}${tail!.slice(1)}`;
    // Every kept line is whole, and what was cut adds up to the original.
    for (const line of kept.split("\n").filter(Boolean)) expect(line).toMatch(/^line \d+$/);
    expect(Buffer.byteLength(kept) + result.cut_bytes).toBe(Buffer.byteLength(text));
    const keptLines = kept.split("\n").filter(Boolean).length;
    expect(keptLines + result.cut_lines).toBe(10_000);
    const [, lines, bytes] = MARKER.exec(result.text)!;
    expect(Number(lines)).toBe(result.cut_lines);
    expect(Number(bytes)).toBe(result.cut_bytes);
  });

  it("never splits a multi-byte character when there is no newline to cut at", () => {
    const result = truncateHeadTail("é".repeat(10_000), { headBytes: 101, tailBytes: 101 });
    expect(result.truncated).toBe(true);
    expect(result.text).not.toContain("\ufffd");
    expect(result.text).toMatch(/^é+\n\.\.\. \[0 lines \/ \d+ bytes cut\] \.\.\.\né+$/);
  });
});

describe("HeadTailBuffer", () => {
  it("gives the same result streamed in small chunks as in one piece", () => {
    const text = numberedLines(5_000);
    const limits = { headBytes: 300, tailBytes: 500 };
    const streamed = new HeadTailBuffer(limits);
    const bytes = Buffer.from(text);
    for (let at = 0; at < bytes.length; at += 7) streamed.push(bytes.subarray(at, at + 7));
    expect(streamed.finish()).toEqual(truncateHeadTail(text, limits));
  });

  it("keeps memory bounded however much is pushed", () => {
    const buffer = new HeadTailBuffer({ headBytes: 1_000, tailBytes: 1_000 });
    const chunk = Buffer.alloc(64 * 1024, "a");
    for (let index = 0; index < 2_000; index++) buffer.push(chunk);
    const result = buffer.finish();
    expect(result.total_bytes).toBe(2_000 * 64 * 1024);
    expect(Buffer.byteLength(result.text)).toBeLessThan(2_100);
    expect(result.cut_bytes).toBe(2_000 * 64 * 1024 - 2_000);
  });
});
