import { trustEvent, type WorkspaceTrust } from "../config/trust/decide.js";
import { wrapToWidth } from "../platform/wrap.js";
import { describeEvent } from "./eventLines.js";

const warned = new Set<string>();

/** A line of cairn's log on stderr, broken between words at a terminal's width. */
function toStderr(line: string): void {
  const text = `cairn: ${line}`;
  const columns = process.stderr.isTTY ? process.stderr.columns : 0;
  process.stderr.write(`${columns ? wrapToWidth(text, columns) : text}\n`);
}

/**
 * Once per folder and process, in cairn's log (stderr): what an untrusted workspace asked for and
 * did not get, and how to trust it. For the front ends without a line renderer there (the JSON
 * formats, the terminal UI, editors, the servers); the line renderer says it from the session's
 * `workspace.trust` event.
 */
export function warnUntrusted(trust: WorkspaceTrust, log: (line: string) => void = toStderr): void {
  const event = trustEvent(trust);
  if (!event || event.trusted || warned.has(trust.folder)) return;
  warned.add(trust.folder);
  for (const line of describeEvent(event) ?? []) log(line.text);
}
