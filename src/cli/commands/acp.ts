import { addCommonOptions, type CommonOptions } from "../options.js";
import type { Register } from "./context.js";

export const register: Register = (program, { version }) => {
  addCommonOptions(
    program
      .command("acp")
      .description("serve the Agent Client Protocol on stdin and stdout, for editors (Zed, Emacs, Neovim)"),
  ).action(async (options: CommonOptions) => {
    const { acpCommand } = await import("../acp.js");
    process.exitCode = await acpCommand(options, version);
  });
};
