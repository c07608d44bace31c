import { ConfigError } from "../config/errors.js";
import { ProviderError } from "../model/errors.js";
import { StoreError } from "../store/db.js";

/** Prints an error that ended the command and returns the exit code DESIGN.md gives it. */
export function reportFatal(error: unknown): number {
  if (error instanceof ConfigError) {
    process.stderr.write(`cairn: ${error.message}\n`);
    return 2;
  }
  if (error instanceof StoreError) {
    process.stderr.write(`cairn: ${error.message}\n`);
    return 2;
  }
  if (error instanceof ProviderError) {
    process.stderr.write(`cairn: ${error.message}\n`);
    return error.isConfiguration ? 2 : 1;
  }
  process.stderr.write(
    `cairn: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  return 1;
}
