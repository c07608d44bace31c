import { ProviderError } from "../model/errors.js";
import { ConfigError, UnavailableError } from "../platform/errors.js";
import { readableStack } from "../platform/stack.js";
import { wrapToWidth } from "../platform/wrap.js";
import { createRedactor } from "../safety/redact.js";
import { StoreError } from "../store/db.js";

/** The message and exit code DESIGN.md gives an error that ended the command. */
function describeFatal(error: unknown): { message: string; code: number } {
  if (error instanceof ConfigError || error instanceof StoreError) return { message: error.message, code: 2 };
  if (error instanceof UnavailableError) return { message: error.message, code: error.exitCode };
  if (error instanceof ProviderError) return { message: error.message, code: error.isConfiguration ? 2 : 1 };
  const detail = error instanceof Error ? readableStack(error) : String(error);
  return { message: `unexpected error: ${detail}`, code: 1 };
}

/**
 * Prints an error that ended the command and returns its exit code. Providers echo a rejected
 * key in their error text, so the message is redacted like everything else cairn shows.
 */
export function reportFatal(error: unknown): number {
  const { message, code } = describeFatal(error);
  const text = `cairn: ${createRedactor()(message)}`;
  const { columns } = process.stderr;
  process.stderr.write(`${process.stderr.isTTY && columns ? wrapToWidth(text, columns) : text}\n`);
  return code;
}
