import type { Command } from "commander";
import type { CommandIo } from "../sessions.js";

/**
 * What every command's registration is handed: the program to add itself to, and what it may
 * need beside its own flags. A command loads its own modules when it runs, never when it
 * registers, so that `--help` and bad usage start fast.
 */
export interface CommandContext {
  /** cairn's version, as package.json says. */
  version: string;
  /** Where a command writes its output and its complaints. */
  io: CommandIo;
}

/** A command module's one export: adds its command (and its subcommands) to the program. */
export type Register = (program: Command, context: CommandContext) => void;
