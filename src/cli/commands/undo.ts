import { cwdOption } from "../options.js";
import type { Register } from "./context.js";
import { openCheckpoints } from "./loaders.js";

export const register: Register = (program, { io }) => {
  program
    .command("undo")
    .description("restore the files as they were before a checkpoint (default: the latest)")
    .argument("[checkpoint]", "checkpoint id or unique prefix")
    .addOption(cwdOption())
    .option("--force", "restore even files changed outside cairn since")
    .action(async (checkpoint: string | undefined, options: { cwd?: string; force?: boolean }) => {
      const { undoCommand } = await import("../checkpoints.js");
      const checkpoints = await openCheckpoints(options.cwd);
      process.exitCode = await undoCommand(
        checkpoints,
        { ...options, ...(checkpoint ? { checkpoint } : {}) },
        io,
      );
    });
};
