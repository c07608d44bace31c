import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { closeLater } from "../helpers/session.js";

const here = (relative: string) => fileURLToPath(new URL(relative, import.meta.url));

/** The reference servers from npm, and a fixture whose tools change. */
export const EVERYTHING = here("../../node_modules/@modelcontextprotocol/server-everything/dist/index.js");
export const FILESYSTEM = here("../../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
export const UNLOCK = here("./fixtures/unlockServer.mjs");
/** A hand-written server that logs on stdout and answers its `broken` tool with cut-off JSON. */
export const BROKEN = here("./fixtures/brokenServer.mjs");
/** A fixture with as many tools as asked, a long result, and a marker file written when it starts. */
export const COUNT = here("./fixtures/countServer.mjs");

/** A local server started with this very Node. */
export const stdio = (script: string, ...args: string[]) => ({
  command: process.execPath,
  args: [script, ...args],
});

/** server-everything in one of its HTTP modes on a free port, until `close`. */
export async function startHttpEverything(mode: "streamableHttp" | "sse") {
  const port = await new Promise<number>((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
  const child = spawn(process.execPath, [EVERYTHING, mode], {
    env: { PATH: process.env.PATH ?? "", PORT: String(port) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  await new Promise<void>((resolve, reject) => {
    let said = "";
    const listen = (chunk: Buffer) => {
      said += chunk;
      if (/listening|running on/i.test(said)) resolve();
    };
    child.stdout.on("data", listen);
    child.stderr.on("data", listen);
    child.once("exit", (code) => reject(new Error(`server-everything ${mode} exited (${code}): ${said}`)));
  });
  const close = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.kill();
    });
  closeLater(close);
  return { base: `http://127.0.0.1:${port}`, close };
}
