import type { ChildProcess } from "node:child_process";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

/** How much of one line of the server's output is kept to tell what it was. */
const KEPT_CHARS = 64 * 1024;

/** A line that set out to be a protocol message and is not one: a reply that broke. */
function brokenMessage(line: string): boolean {
  const text = line.trim();
  if (!text.startsWith("{") || !text.includes('"jsonrpc"')) return false;
  try {
    JSON.parse(text);
    return false;
  } catch {
    return true;
  }
}

/**
 * Calls `onBroken` when a local server writes a protocol message that cannot be read (broken
 * JSON, cut off). The SDK only reports such a line, and the call it answered would wait out its
 * whole timeout; lines that are not protocol messages at all (a log line a server prints on
 * stdout) are left alone, as the SDK leaves them. Only lines the SDK has just found unreadable
 * are looked at.
 */
export function watchReplies(transport: StdioClientTransport, client: Client, onBroken: () => void): void {
  // The SDK keeps the server's process to itself; without it, calls wait out their timeout.
  const stdout = (transport as unknown as { _process?: ChildProcess })._process?.stdout;
  if (!stdout) return;
  let unreadable = false;
  const reported = client.onerror;
  client.onerror = (error) => {
    if (error.name === "SyntaxError" || error.name === "ZodError") unreadable = true;
    reported?.(error);
  };
  let partial = "";
  // Added after the SDK's own listener, so it runs after the SDK has read the same chunk.
  stdout.on("data", (chunk: Buffer) => {
    const lines = (partial + chunk.toString("utf8")).split("\n");
    partial = (lines.pop() ?? "").slice(0, KEPT_CHARS);
    if (!unreadable) return;
    unreadable = false;
    if (lines.some(brokenMessage)) onBroken();
  });
}
