import { type ChildProcessByStdio, spawn, spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  symlinkSync,
} from "node:fs";
import path from "node:path";
import type { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { CAIRN_BIN, makeHome, olderNode } from "../helpers/cli.js";
import { tempDir } from "../helpers/temp.js";
import { scaled } from "../helpers/timeScale.js";
import { until } from "../helpers/wait.js";

const oldNode = olderNode();

/** How `cairn serve` is started here: a home of its own, the PATH given, its output read. */
function serving(home: string, PATH: string) {
  return {
    env: {
      PATH,
      HOME: home,
      XDG_CONFIG_HOME: path.join(home, "config"),
      XDG_DATA_HOME: path.join(home, "data"),
    },
    stdio: ["ignore", "pipe", "pipe"] as ["ignore", "pipe", "pipe"],
  };
}

/** Resolves once `cairn serve` says where it listens; fails if it exits first. */
function listening(server: ChildProcessByStdio<null, Readable, Readable>): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let out = "";
    server.stdout.on("data", (chunk) => {
      out += chunk;
      if (out.includes("cairn serve: http")) resolve();
    });
    server.once("exit", (code) => reject(new Error(`exited ${code}: ${out}`)));
  });
}

describe.skipIf(!oldNode)("started on a Node older than 22", () => {
  it("starts again on the Node 22 that npm install brought", () => {
    const run = spawnSync(oldNode as string, [CAIRN_BIN, "--version"], { encoding: "utf8" });
    expect(run.stderr).toBe("");
    expect(run.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    expect(run.status).toBe(0);
  });

  it(
    "linked as npm links it, starts the clone's Node 22 directly: one process, not a Node that starts another",
    async () => {
      const home = await makeHome();
      // npm link (or npm install -g .) puts a symlink to package.json's bin on the PATH.
      const bin = path.join(home, "bin");
      mkdirSync(bin);
      const pkg = JSON.parse(readFileSync(path.join(path.dirname(CAIRN_BIN), "..", "package.json"), "utf8"));
      symlinkSync(path.join(path.dirname(CAIRN_BIN), "..", pkg.bin.cairn), path.join(bin, "cairn"));
      // The machine's own, older Node first, as on a machine with Node 20.
      const PATH = [bin, path.dirname(oldNode as string), "/usr/bin", "/bin"].join(path.delimiter);
      const cairn = spawn("cairn", ["serve", "--port", "0"], serving(home, PATH));
      try {
        await listening(cairn);
        const bundled = realpathSync(
          path.join(path.dirname(CAIRN_BIN), "..", "node_modules", "node", "bin", "node"),
        );
        expect(readlinkSync(`/proc/${cairn.pid}/exe`)).toBe(bundled);
        const children = readFileSync(`/proc/${cairn.pid}/task/${cairn.pid}/children`, "utf8").trim();
        const nodes = children
          .split(" ")
          .filter(Boolean)
          .filter((pid) => /node/.test(readlinkSync(`/proc/${pid}/exe`)));
        expect(nodes).toEqual([]);
        const version = spawnSync("cairn", ["--version"], {
          encoding: "utf8",
          env: { PATH: [bin, path.dirname(oldNode as string), "/usr/bin", "/bin"].join(path.delimiter) },
        });
        expect(version.stdout.trim()).toBe(pkg.version);
      } finally {
        cairn.kill("SIGTERM");
      }
    },
    scaled(30_000),
  );

  it("says what to install when there is no Node 22 beside it, and exits 2", () => {
    const copy = tempDir("cairn-old-node-");
    cpSync(path.dirname(CAIRN_BIN), path.join(copy, "bin"), { recursive: true });
    const run = spawnSync(oldNode as string, [path.join(copy, "bin", "cairn.js"), "--version"], {
      encoding: "utf8",
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("cairn needs Node 22.12 or newer");
    expect(run.stderr).toContain("npm install");
    expect(run.stderr).not.toContain("node:sqlite");
  });

  it(
    "ends the cairn it started on Node 22 when it is killed, even by SIGKILL",
    async () => {
      const home = await makeHome();
      const launcher = spawn(
        oldNode as string,
        [CAIRN_BIN, "serve", "--port", "0"],
        serving(home, process.env.PATH ?? ""),
      );
      try {
        await listening(launcher);
        const children = readFileSync(`/proc/${launcher.pid}/task/${launcher.pid}/children`, "utf8").trim();
        const cairn = Number(children.split(" ")[0]);
        expect(cairn).toBeGreaterThan(0);
        launcher.kill("SIGKILL");
        await until("cairn to end with its launcher", () => !existsSync(`/proc/${cairn}`), 15_000);
      } finally {
        launcher.kill("SIGKILL");
      }
    },
    scaled(30_000),
  );
});
