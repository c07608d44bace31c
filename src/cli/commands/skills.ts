import { cwdOption } from "../options.js";
import type { Register } from "./context.js";

export const register: Register = (program, { io }) => {
  program
    .command("skills")
    .description(
      "the skills the model can load here (SKILL.md folders), where each comes from, and what it is for",
    )
    .addOption(cwdOption())
    .option("--config <file>", "extra config file, applied over the global and project ones")
    .option("--json", "print JSON")
    .action(async (options: { cwd?: string; config?: string; json?: boolean }) => {
      const { skillsCommand } = await import("../skills.js");
      process.exitCode = await skillsCommand(options, {
        ...io,
        ...(process.stdout.columns ? { columns: process.stdout.columns } : {}),
      });
    });
};
