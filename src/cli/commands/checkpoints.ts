import { cwdOption } from "../options.js";
import type { Register } from "./context.js";
import { openCheckpoints } from "./loaders.js";

export const register: Register = (program, { io }) => {
  program
    .command("checkpoints")
    .description("the snapshots taken before cairn changed files in this workspace, newest first")
    .argument("[session]", "only this session's (id or unique prefix)")
    .addOption(cwdOption())
    .option("--json", "print JSON")
    .action(async (session: string | undefined, options: { cwd?: string; json?: boolean }) => {
      const { checkpointsCommand } = await import("../checkpoints.js");
      const checkpoints = await openCheckpoints(options.cwd);
      process.exitCode = await checkpointsCommand(
        checkpoints,
        { ...options, ...(session ? { session } : {}) },
        io,
      );
    });
};
