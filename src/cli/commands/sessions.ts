import type { Register } from "./context.js";
import { withStore } from "./loaders.js";

export const register: Register = (program, { io }) => {
  const sessions = program
    .command("sessions")
    .description("list past sessions, newest first")
    .option("--limit <n>", "how many", "20")
    .option("--workspace <dir>", "only sessions run in this folder")
    .option("--json", "print JSON")
    .action(async (options) => {
      const { sessionsCommand } = await import("../sessions.js");
      process.exitCode = await withStore((store) => sessionsCommand(store, options, io));
    });
  sessions
    .command("show")
    .description("a session's timeline")
    .argument("<id>", "session id, or a unique start or end of it (the 6 letters after the last -)")
    .option("--json", "print JSON")
    .action(async (id: string, options) => {
      const { sessionsShowCommand } = await import("../sessions.js");
      process.exitCode = await withStore((store) => sessionsShowCommand(store, id, options, io));
    });
  sessions
    .command("export")
    .description("a session as a Markdown report or JSON")
    .argument("<id>", "session id, or a unique start or end of it (the 6 letters after the last -)")
    .option("--format <format>", "md or json", "md")
    .action(async (id: string, options) => {
      const { sessionsExportCommand } = await import("../sessions.js");
      process.exitCode = await withStore((store) => sessionsExportCommand(store, id, options, io));
    });
  sessions
    .command("rm")
    .description("delete a session, its events and its usage rows")
    .argument("<id>", "session id, or a unique start or end of it (the 6 letters after the last -)")
    .action(async (id: string) => {
      const { sessionsRmCommand } = await import("../sessions.js");
      process.exitCode = await withStore((store) => sessionsRmCommand(store, id, io));
    });
};
