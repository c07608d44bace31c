import { mkdir, writeFile } from "node:fs/promises";
import { type AddressInfo, createServer } from "node:net";
import path from "node:path";
import { stringify } from "yaml";
import type { ConfigInput } from "../../src/config/schema.js";
import { type Format, makeHome, modelFlags, runCairn, streamEvents } from "../helpers/cli.js";
import { type Script, type ScriptedServer, startScriptedServer } from "../support/scriptedServer.js";

export type CliEvent = Record<string, unknown> & { type: string };

export interface FaultRun {
  code: number | null;
  stdout: string;
  stderr: string;
  events: CliEvent[];
  result: Record<string, unknown> | undefined;
  server: ScriptedServer;
  home: string;
}

export interface FaultOptions {
  format?: Format;
  /** Written as the global config file. */
  config?: ConfigInput;
  approval?: string;
  /** Flags after the defaults; `--output-format` here replaces stream-json. */
  args?: string[];
  env?: Record<string, string>;
  command?: "do" | "run";
}

const servers: ScriptedServer[] = [];

/** A scripted model server that closeServers will close. */
export async function serve(script: Script): Promise<ScriptedServer> {
  const server = await startScriptedServer(script);
  servers.push(server);
  return server;
}

/** Closes the scripted servers of the tests so far; for afterEach. */
export async function closeServers(): Promise<void> {
  await Promise.all(servers.splice(0).map((server) => server.close()));
}

/**
 * Runs `cairn do` (or `run`) headless on a repository against a scripted model, with its own
 * home and a global config (quick retries by default, so a fault costs milliseconds).
 */
export async function runFaulty(repo: string, task: string, script: Script, options: FaultOptions = {}) {
  const server = await serve(script);
  const home = await makeHome();
  const config: ConfigInput = { retries: { max: 3, base_ms: 20 }, ...options.config };
  await mkdir(path.join(home, "config", "cairn"), { recursive: true });
  await writeFile(path.join(home, "config", "cairn", "config.yaml"), stringify(config));
  const model = modelFlags(options.format ?? "openai", server);
  const extra = options.args ?? [];
  const format = extra.includes("--output-format") ? [] : ["--output-format", "stream-json"];
  const run = await runCairn(
    [
      options.command ?? "do",
      task,
      ...model.args,
      "--cwd",
      repo,
      "--approval",
      options.approval ?? "auto",
      ...format,
      ...extra,
    ],
    { home, env: { ...model.env, ...options.env }, timeoutMs: 40_000 },
  );
  const events = format.length > 0 ? streamEvents(run.stdout) : [];
  const result = events.find((event) => event.type === "result");
  return { ...run, events, result, server, home } satisfies FaultRun;
}

/** The tool results of a run, in order. */
export function toolResults(events: CliEvent[]): Array<{ tool: string; ok: boolean; output: string }> {
  return events
    .filter((event) => event.type === "tool.result")
    .map((event) => ({ tool: String(event.tool), ok: Boolean(event.ok), output: String(event.output) }));
}

/** A server on the host's loopback that greets whoever connects: what a sandbox must not reach. */
export async function loopbackGreeter(
  greeting: string,
): Promise<{ port: number; close: () => Promise<void> }> {
  const server = createServer((socket) => socket.end(greeting));
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}

/**
 * A command that connects to that port with node, which the command checks cannot see into:
 * exit 0 printing `connected <greeting>`, or exit 3 printing `failed <error code>`.
 */
export function connectCommand(port: number): string {
  return (
    `node -e "require('net').connect(${port}, '127.0.0.1')` +
    `.on('data', d => { process.stdout.write('connected ' + d); process.exit(0) })` +
    `.on('error', e => { console.log('failed ' + e.code); process.exit(3) })"`
  );
}
