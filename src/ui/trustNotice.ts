import { trustEvent, type WorkspaceTrust } from "../config/trust/decide.js";
import { describeEvent } from "./eventLines.js";

const warned = new Set<string>();

/**
 * Once per folder and process, in cairn's log (stderr): what an untrusted workspace asked for and
 * did not get, and how to trust it. For the front ends without a line renderer there (the JSON
 * formats, the terminal UI, editors, the servers); the line renderer says it from the session's
 * `workspace.trust` event.
 */
export function warnUntrusted(
  trust: WorkspaceTrust,
  log: (line: string) => void = (line) => process.stderr.write(`cairn: ${line}\n`),
): void {
  const event = trustEvent(trust);
  if (!event || event.trusted || warned.has(trust.folder)) return;
  warned.add(trust.folder);
  for (const line of describeEvent(event) ?? []) log(line.text);
}
