import { onStopSignal, signalExitCode } from "../platform/signals.js";
import { detectSandbox } from "../safety/sandbox.js";
import { isLoopback, newToken } from "../server/auth.js";
import { type RunningServer, startServer, TOKEN_VARIABLE } from "../server/start.js";
import type { CommandIo } from "./sessions.js";

export interface ServeCommandOptions {
  port: number;
  host: string;
  token?: string;
  cwd?: string;
  config?: string;
}

/** A token someone chose must still be hard to guess. */
const MIN_TOKEN_LENGTH = 16;

const BAD_USAGE = 2;

/** Resolves at the first Ctrl-C, SIGTERM or SIGHUP; a second one exits at once. */
function stopSignal(): Promise<void> {
  return new Promise((resolve) => {
    let stopping = false;
    onStopSignal((signal) => {
      if (stopping) process.exit(signalExitCode(signal));
      stopping = true;
      resolve();
    });
  });
}

function banner(server: RunningServer, host: string, token: string, generated: boolean): string {
  const sandbox = detectSandbox();
  const local = isLoopback(host) ? server.url : server.url.replace(host, "127.0.0.1");
  // Like Jupyter: a token made here is printed with the URL, the only way to learn it. One the
  // person chose is theirs already and stays off the terminal (and whatever logs it).
  const open = generated ? `${local}?token=${token}` : `${local} (with the token you gave)`;
  return [
    `cairn serve: ${open}`,
    ...(isLoopback(host)
      ? []
      : [`  listening on ${host}, port ${server.port}: every request needs the token`]),
    `  workspaces: ${server.workspaces.join(", ")}`,
    ...(sandbox.kind === "none" ? [`  warning: ${sandbox.reason}`] : []),
    `  API: ${local}api/openapi.json (send Authorization: Bearer <token>)`,
    "  Ctrl-C stops the server; sessions running in it are cancelled.",
    "",
  ].join("\n");
}

/**
 * `cairn serve`: the HTTP API and the dashboard until Ctrl-C. Loopback by default; another
 * address only with a token chosen in advance, since a printed one would be the only lock on a
 * server the network can reach.
 */
export async function serveCommand(options: ServeCommandOptions, io: CommandIo): Promise<number> {
  const given = options.token ?? process.env[TOKEN_VARIABLE];
  if (!isLoopback(options.host) && !given) {
    io.err.write(
      `cairn: --host ${options.host} would open cairn to the network. Choose the token yourself with ${TOKEN_VARIABLE} ` +
        "(or --token <token>), or keep the default --host 127.0.0.1.\n",
    );
    return BAD_USAGE;
  }
  if (given !== undefined && given.length < MIN_TOKEN_LENGTH) {
    io.err.write(`cairn: the token must be at least ${MIN_TOKEN_LENGTH} characters long.\n`);
    return BAD_USAGE;
  }
  const token = given ?? newToken();
  let server: RunningServer;
  try {
    server = await startServer({
      cwd: options.cwd ?? process.cwd(),
      host: options.host,
      port: options.port,
      token,
      ...(options.config ? { configFile: options.config } : {}),
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EADDRINUSE" || code === "EADDRNOTAVAIL" || code === "EACCES") {
      const why =
        code === "EADDRINUSE" ? "is in use" : code === "EACCES" ? "is not allowed" : "is not available";
      io.err.write(
        `cairn: ${options.host}:${options.port} ${why}; pick another with --port <n> (0: any free port) or --host.\n`,
      );
      return BAD_USAGE;
    }
    throw error;
  }
  io.out.write(banner(server, options.host, token, given === undefined));
  await stopSignal();
  io.err.write("cairn serve: stopping; cancelling the sessions running here (Ctrl-C again: at once)…\n");
  await server.close();
  return 0;
}
