import { InvalidArgumentError } from "commander";
import { cwdOption } from "../options.js";
import type { Register } from "./context.js";

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new InvalidArgumentError("expected a port number from 0 (any free port) to 65535.");
  return n;
}

export const register: Register = (program, { io }) => {
  program
    .command("serve")
    .description(
      "the HTTP API and the web dashboard: sessions, live events, approvals, costs (docs/server.md)",
    )
    .option("--port <n>", "port to listen on (0: any free port)", port, 4517)
    .option(
      "--host <address>",
      "address to listen on; other than loopback needs a token you choose",
      "127.0.0.1",
    )
    .option("--token <token>", "the access token (default: a random one, printed); also CAIRN_SERVER_TOKEN")
    .addOption(cwdOption("the folder sessions may run in (default: the current folder)"))
    .option("--config <file>", "extra config file, applied over the global and project ones")
    .action(async (options) => {
      const { serveCommand } = await import("../serve.js");
      process.exitCode = await serveCommand(options, io);
    });
};
