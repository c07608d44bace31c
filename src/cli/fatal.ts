import wrapAnsi from "wrap-ansi";
import { ProviderError } from "../model/errors.js";
import { ConfigError, UnavailableError } from "../platform/errors.js";
import { readableStack } from "../platform/stack.js";
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
 * A message as a terminal `columns` wide shows it: each line broken between words, never inside
 * one, and what a line wraps onto indented under it.
 */
export function wrapToWidth(message: string, columns: number): string {
  return message
    .split("\n")
    .map((line) => {
      const indent = /^\s*/.exec(line)?.[0] ?? "";
      const width = Math.max(20, columns - indent.length - 2);
      return wrapAnsi(line.slice(indent.length), width, { hard: true, trim: true })
        .split("\n")
        .map((part, i) => `${indent}${i === 0 ? "" : "  "}${part}`)
        .join("\n");
    })
    .join("\n");
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
