import { type ChildProcess, execFile, spawn } from "node:child_process";
import { rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tempDir } from "./temp.js";
import { scaled } from "./timeScale.js";

/** A real redis-server (the Debian package) of a test's own: its own port and data folder. */
export interface TestRedis {
  url: string;
  port: number;
  /**
   * Stops the server, as a Redis that went away: its port, its folder and what it held are kept
   * (saved on the way down, as a Redis that restarts keeps its data), so the queue is still there
   * when it comes back; what expired meanwhile (a worker's lock) is gone.
   */
  pause(): Promise<void>;
  /** Starts it again on the same port, with what it held when paused. */
  resume(): Promise<void>;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function launch(port: number, dir: string): Promise<ChildProcess> {
  const child = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--save", "", "--appendonly", "no"],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  return new Promise((resolve, reject) => {
    let said = "";
    const timer = setTimeout(() => reject(new Error(`redis-server did not start:\n${said}`)), scaled(10_000));
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(
        new Error(
          `redis-server could not be started (is the redis-server package installed?): ${error.message}`,
        ),
      );
    });
    child.stdout?.on("data", (chunk) => {
      said += chunk;
      if (said.includes("Ready to accept connections")) {
        clearTimeout(timer);
        resolve(child);
      }
    });
  });
}

function ended(child: ChildProcess, port?: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    if (port === undefined) {
      child.kill("SIGTERM");
      return;
    }
    // Saved as it stops (snapshots are off while it runs): SIGTERM if the save cannot be asked for.
    execFile("redis-cli", ["-p", String(port), "shutdown", "save"], (error) => {
      if (error && child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    });
  });
}

export async function startRedis(): Promise<TestRedis> {
  const dir = tempDir("cairn-redis-");
  const port = await freePort();
  let child: ChildProcess | undefined = await launch(port, dir);
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    async pause() {
      if (child) await ended(child, port);
      child = undefined;
    },
    async resume() {
      child = await launch(port, dir);
    },
    async stop() {
      if (child) await ended(child);
      child = undefined;
      await rm(dir, { recursive: true, force: true });
    },
  };
}
