import { existingFolder } from "../options.js";
import type { Register } from "./context.js";

export const register: Register = (program, { io }) => {
  program
    .command("trust")
    .description(
      "trust a folder: what its own files ask for beyond your settings applies there — .cairn/config.yaml (its hooks included), .mcp.json, and the agents, commands and skills in .cairn/ and .claude/",
    )
    .argument("[dir]", "the folder (default: the current one)", existingFolder)
    .option("--list", "the folders you trust, and whether their files changed since")
    .option("--revoke <dir>", "stop trusting a folder")
    .option("--json", "print JSON (with --list)")
    .action(async (dir: string | undefined, options) => {
      const { trustCommand } = await import("../trust.js");
      process.exitCode = await trustCommand(dir, options, io);
    });
};
