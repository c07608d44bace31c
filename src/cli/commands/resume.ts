import { addCommonOptions, type CommonOptions } from "../options.js";
import type { Register } from "./context.js";

export const register: Register = (program) => {
  addCommonOptions(
    program
      .command("resume")
      .description("continue an interrupted session from its last completed action")
      .argument("[id]", "session id, or a unique start or end of it (the 6 letters after the last -)")
      .option("--last", "the newest session in this folder"),
  ).action(async (id: string | undefined, options: CommonOptions & { last?: boolean }) => {
    const { resumeCommand } = await import("../resume.js");
    process.exitCode = await resumeCommand(id, options);
  });
};
