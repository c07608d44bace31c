import { Option } from "commander";
import { cwdOption } from "../options.js";
import type { Register } from "./context.js";

const collect = (value: string, previous: string[]) => [...previous, value];

export const register: Register = (program, { io }) => {
  const mcp = program
    .command("mcp")
    .description("MCP servers: the ones whose tools cairn offers, and cairn as one");
  mcp
    .command("list")
    .description("start each configured MCP server and show its status and tool count")
    .addOption(cwdOption())
    .option("--config <file>", "extra config file, applied over the global and project ones")
    .option("--json", "print JSON")
    .action(async (options) => {
      const { mcpListCommand } = await import("../mcp.js");
      process.exitCode = await mcpListCommand(options, io);
    });
  mcp
    .command("add")
    .description("add a server: cairn mcp add <name> -- <command> [args…], or --transport http <name> <url>")
    .argument("<name>", "the server's name; its tools are offered as <name>__<tool>")
    .argument("<command-or-url...>", "the command and its arguments (after --), or the URL")
    .addOption(
      new Option("--transport <type>", "how to reach it").choices(["stdio", "http", "sse"]).default("stdio"),
    )
    .addOption(
      new Option("--scope <scope>", "which config file: the project's or the global one")
        .choices(["project", "global"])
        .default("project"),
    )
    .option("-e, --env <KEY=value>", "an environment variable for the command (repeatable)", collect, [])
    .option(
      "-H, --header <Name: value>",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: ${VAR} is what the person types
      "an HTTP header; write ${VAR} to keep a token in the environment (repeatable)",
      collect,
      [],
    )
    .addOption(cwdOption())
    .action(async (name: string, target: string[], options) => {
      const { mcpAddCommand } = await import("../mcp.js");
      process.exitCode = await mcpAddCommand(name, target, options, io);
    });
  mcp
    .command("remove")
    .description(
      "remove a server from the config files that have it (the project's, the global one, .mcp.json)",
    )
    .argument("<name>", "the server's name")
    .addOption(new Option("--scope <scope>", "only this file").choices(["project", "global", "mcp-json"]))
    .addOption(cwdOption())
    .action(async (name: string, options) => {
      const { mcpRemoveCommand } = await import("../mcp.js");
      process.exitCode = await mcpRemoveCommand(name, options, io);
    });
  mcp
    .command("serve")
    .description("serve cairn_do and cairn_run to an MCP client over stdio (Claude Code, Codex, …)")
    .addOption(
      cwdOption("the folder tasks run in unless they give their own cwd (default: the current folder)"),
    )
    .option("--config <file>", "extra config file, applied over the global and project ones")
    .action(async (options: { cwd?: string; config?: string }) => {
      const { serveMcp } = await import("../../mcp/serve.js");
      await serveMcp({ cwd: options.cwd ?? process.cwd(), configFile: options.config });
    });
};
