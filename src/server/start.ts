import type { Server } from "node:http";
import os from "node:os";
import { createAdaptorServer } from "@hono/node-server";
import { loadConfig } from "../config/load.js";
import { storePath } from "../store/db.js";
import { Store } from "../store/sessions.js";
import { buildApp } from "./app.js";
import { isLoopback } from "./auth.js";
import { LiveSessions } from "./live.js";
import { packageVersion } from "./packageInfo.js";
import { Workspaces } from "./workspaces.js";

/** The variable a token can be given in instead of `--token` (which other users can see in `ps`). */
export const TOKEN_VARIABLE = "CAIRN_SERVER_TOKEN";

export interface ServeOptions {
  /** The folder the server starts in: the first allowed workspace, and where its config is read. */
  cwd: string;
  host: string;
  /** 0 picks a free port. */
  port: number;
  token: string;
  configFile?: string;
  env?: NodeJS.ProcessEnv;
  /** The server's own messages (a session that failed with a bug); standard error by default. */
  log?: (message: string) => void;
}

export interface RunningServer {
  /** Where it listens, without the token: `http://127.0.0.1:4517/`. */
  url: string;
  port: number;
  workspaces: string[];
  /** Cancels the sessions running in it, waits until their ends are stored, then stops listening. */
  close(): Promise<void>;
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      const address = server.address();
      resolve(typeof address === "object" && address ? address.port : port);
    });
  });
}

/** `cairn serve`: the HTTP API and the dashboard over the store and the sessions run here. */
export async function startServer(options: ServeOptions): Promise<RunningServer> {
  const log = options.log ?? ((message: string) => process.stderr.write(`cairn serve: ${message}\n`));
  // Sessions never see the token: not in their commands' environment, not in anything stored.
  const { [TOKEN_VARIABLE]: _token, ...env } = options.env ?? process.env;
  const { config } = await loadConfig({
    cwd: options.cwd,
    ...(options.configFile ? { configFile: options.configFile } : {}),
    env,
  });
  const workspaces = new Workspaces(options.cwd, config.server.workspaces, env.HOME || os.homedir());
  const store = Store.open(storePath(env));
  const live = new LiveSessions({
    ...(options.configFile ? { configFile: options.configFile } : {}),
    env,
    log,
  });
  let port = options.port;
  const app = buildApp(
    { store, live, workspaces, env, version: packageVersion() },
    {
      access: { token: options.token, loopback: isLoopback(options.host), port: () => port },
      maxBodyBytes: config.server.max_body_bytes,
      log,
    },
  );
  const server = createAdaptorServer({ fetch: app.fetch }) as Server;
  try {
    port = await listen(server, options.port, options.host);
  } catch (error) {
    store.close();
    throw error;
  }
  const shownHost = options.host.includes(":") ? `[${options.host}]` : options.host;
  return {
    url: `http://${shownHost}:${port}/`,
    port,
    workspaces: workspaces.roots,
    async close() {
      await live.stopAll();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      store.close();
    },
  };
}
