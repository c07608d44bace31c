import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { type DroppedLine, LineLimit, refusalOf } from "../../src/platform/lineLimit.js";

/** What comes out of a LineLimit fed these chunks, and the lines it dropped. */
async function through(maxBytes: number, chunks: string[]): Promise<{ out: string; dropped: DroppedLine[] }> {
  const dropped: DroppedLine[] = [];
  const limit = new LineLimit(maxBytes, (line) => dropped.push(line));
  let out = "";
  for await (const piece of Readable.from(chunks.map((chunk) => Buffer.from(chunk))).pipe(limit))
    out += piece;
  return { out, dropped };
}

describe("LineLimit", () => {
  it("passes lines within the limit on whole, however they were split", async () => {
    const { out, dropped } = await through(20, ['{"a":', '1}\n{"b"', ":2}\n", '{"c":3}']);
    expect(out).toBe('{"a":1}\n{"b":2}\n{"c":3}');
    expect(dropped).toEqual([]);
  });

  it("drops a line over the limit as it arrives, says so once it ends, and goes on", async () => {
    const big = `{"jsonrpc":"2.0","id":7,"method":"x","params":"${"y".repeat(5000)}"}`;
    const { out, dropped } = await through(1000, [
      '{"ok":1}\n',
      big.slice(0, 3000),
      `${big.slice(3000)}\n`,
      '{"ok":2}\n',
    ]);
    expect(out).toBe('{"ok":1}\n{"ok":2}\n');
    expect(dropped).toEqual([
      { bytes: big.length + 1, head: big.slice(0, 1024), tail: `${big.slice(-1023)}\n` },
    ]);
  });
});

describe("refusalOf", () => {
  const line = (head: string, tail = "…"): DroppedLine => ({ bytes: 5_000_000, head, tail });

  it("answers the request its first bytes name", () => {
    const reply = JSON.parse(
      refusalOf(line('{"jsonrpc":"2.0","id":"req-1","method":"tools/call","params":{'), "the limit")!,
    );
    expect(reply).toEqual({
      jsonrpc: "2.0",
      id: "req-1",
      error: { code: -32600, message: "message of 5000000 bytes refused: over the limit" },
    });
    expect(JSON.parse(refusalOf(line('{"id": 12, "method"'), "the limit")!).id).toBe(12);
    // The MCP SDK writes the id last.
    const last = line('{"method":"tools/call","params":{"id":"inner",', '"},"jsonrpc":"2.0","id":3}\n');
    expect(JSON.parse(refusalOf(last, "the limit")!).id).toBe(3);
  });

  it("answers with a null id what it cannot read, and nothing to a notification", () => {
    expect(JSON.parse(refusalOf(line("xxxxxxxx"), "the limit")!).id).toBeNull();
    expect(
      refusalOf(line('{"jsonrpc":"2.0","method":"notifications/progress","params":{'), "the limit"),
    ).toBeUndefined();
  });
});
