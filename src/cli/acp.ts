import type { CommonOptions } from "./options.js";
import { flagsFrom } from "./task.js";

/**
 * `cairn acp`: serves the Agent Client Protocol on stdin and stdout for an editor, until the
 * editor closes them. stdout carries the protocol alone: cairn's own messages go to stderr, and
 * so does anything a library would print.
 */
export async function acpCommand(options: CommonOptions, version: string): Promise<number> {
  const log = (message: string) => process.stderr.write(`cairn: ${message}\n`);
  for (const method of ["log", "info", "debug"] as const) console[method] = console.error;
  const { serveAcp } = await import("../acp/server.js");
  await serveAcp({
    version,
    cwd: options.cwd ?? process.cwd(),
    configFile: options.config,
    flags: flagsFrom(options),
    debugLog: options.debugLog,
    trustWorkspace: options.trustWorkspace,
    input: process.stdin,
    output: process.stdout,
    log,
  });
  return 0;
}
