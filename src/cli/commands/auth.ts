import { cwdOption } from "../options.js";
import type { Register } from "./context.js";

const authCwdOption = () =>
  cwdOption("the folder whose config names the key variables (default: the current folder)");

export const register: Register = (program, { io }) => {
  const auth = program
    .command("auth")
    .description(
      "API keys stored for cairn, used where the environment has none (an MCP client's, an editor's)",
    );
  auth
    .command("login")
    .description("store a provider's API key, typed hidden or piped in, in a file only you can read")
    .argument("<provider>", "openrouter, anthropic, openai, google, ollama or openai-compatible")
    .addOption(authCwdOption())
    .option("--config <file>", "extra config file, applied over the global and project ones")
    .action(async (provider: string, options) => {
      const { authLoginCommand } = await import("../auth.js");
      process.exitCode = await authLoginCommand(provider, options, io);
    });
  auth
    .command("logout")
    .description("remove a provider's stored API key")
    .argument("<provider>", "the provider whose key to remove")
    .addOption(authCwdOption())
    .option("--config <file>", "extra config file, applied over the global and project ones")
    .action(async (provider: string, options) => {
      const { authLogoutCommand } = await import("../auth.js");
      process.exitCode = await authLogoutCommand(provider, options, io);
    });
  auth
    .command("list")
    .description(
      "each provider's key variable, and whether its key is in the environment or stored (never the key)",
    )
    .addOption(authCwdOption())
    .option("--config <file>", "extra config file, applied over the global and project ones")
    .option("--json", "print JSON")
    .action(async (options) => {
      const { authListCommand } = await import("../auth.js");
      process.exitCode = await authListCommand(options, io);
    });
};
