import { cwdOption } from "../options.js";
import type { Register } from "./context.js";

export const register: Register = (program, { io }) => {
  program
    .command("agents")
    .description(
      "the agents task and --agent can name, where each came from, and the external agents installed",
    )
    .addOption(cwdOption())
    .option("--config <file>", "extra config file, applied over the global and project ones")
    .option("--json", "print JSON")
    .action(async (options: { cwd?: string; config?: string; json?: boolean }) => {
      const { agentsCommand } = await import("../agents.js");
      process.exitCode = await agentsCommand(options, io);
    });
};
