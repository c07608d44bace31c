import { addCommonOptions, type CommonOptions } from "../options.js";
import type { Register } from "./context.js";
import { openTerminalUi } from "./loaders.js";

export const register: Register = (program) => {
  addCommonOptions(
    program.command("chat").description("talk with the agent in the terminal UI (piped: one message)"),
  ).action(async (options: CommonOptions) => {
    process.exitCode = await openTerminalUi(options);
  });
};
