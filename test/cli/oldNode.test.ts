import { spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CAIRN_BIN, makeHome, olderNode } from "../helpers/cli.js";
import { tempDir } from "../helpers/temp.js";
import { scaled } from "../helpers/timeScale.js";
import { until } from "../helpers/wait.js";

const oldNode = olderNode();

describe.skipIf(!oldNode)("started on a Node older than 22", () => {
  it("starts again on the Node 22 that npm install brought", () => {
    const run = spawnSync(oldNode as string, [CAIRN_BIN, "--version"], { encoding: "utf8" });
    expect(run.stderr).toBe("");
    expect(run.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    expect(run.status).toBe(0);
  });

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
      const launcher = spawn(oldNode as string, [CAIRN_BIN, "serve", "--port", "0"], {
        env: {
          PATH: process.env.PATH ?? "",
          HOME: home,
          XDG_CONFIG_HOME: path.join(home, "config"),
          XDG_DATA_HOME: path.join(home, "data"),
        },
        stdio: ["ignore", "pipe", "pipe"],
      });
      try {
        await new Promise<void>((resolve, reject) => {
          let out = "";
          launcher.stdout.on("data", (chunk) => {
            out += chunk;
            if (out.includes("cairn serve: http")) resolve();
          });
          launcher.once("exit", (code) => reject(new Error(`exited ${code}: ${out}`)));
        });
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
