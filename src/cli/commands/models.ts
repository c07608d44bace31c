import { cwdOption } from "../options.js";
import type { Register } from "./context.js";

export const register: Register = (program, { io }) => {
  program
    .command("models")
    .description(
      "what cairn knows of models — window, tool calls, images — and where from: the config, the price list, or the local server",
    )
    .argument(
      "[models...]",
      "provider/model ids to ask about now (default: the run's model, and every one learned before)",
    )
    .addOption(cwdOption())
    .option("--config <file>", "extra config file, applied over the global and project ones")
    .option("--json", "print JSON")
    .action(async (models: string[], options: { cwd?: string; config?: string; json?: boolean }) => {
      const { modelsCommand } = await import("../models.js");
      process.exitCode = await modelsCommand(models, options, io);
    });
};
