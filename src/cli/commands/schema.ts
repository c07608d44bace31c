import { Argument } from "commander";
import type { Register } from "./context.js";

export const register: Register = (program, { io }) => {
  program
    .command("schema")
    .description("the protocol as JSON Schema: a stream-json line (events), the run result, an op")
    .addArgument(new Argument("<name>", "which document").choices(["events", "result", "ops"]))
    .action(async (name: "events" | "result" | "ops") => {
      const { schemaCommand } = await import("../schema.js");
      process.exitCode = schemaCommand(name, io);
    });
};
