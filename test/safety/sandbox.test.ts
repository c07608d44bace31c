import { execFileSync, spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { spawnGroup } from "../../src/platform/processes.js";
import { detectSandbox, wrapCommand } from "../../src/safety/sandbox.js";
import { connectCommand, loopbackGreeter } from "../faults/harness.js";
import { ownSleepLength } from "../helpers/cli.js";
import { tempDir } from "../helpers/temp.js";
import { until } from "../helpers/wait.js";

const sandbox = detectSandbox();
const unavailable = sandbox.kind !== "bwrap";
if (unavailable) console.warn(`SKIPPED bubblewrap sandbox tests: ${sandbox.reason}`);

let root: string;
let workspace: string;
let tmpDir: string;
let outside: string;

beforeEach(() => {
  root = tempDir("cairn-sandbox-");
  workspace = path.join(root, "workspace");
  tmpDir = path.join(root, "session-tmp");
  outside = path.join(root, "outside");
  for (const dir of [workspace, tmpDir, outside]) mkdirSync(dir);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

async function sandboxed(command: string, options: { allowNetwork?: boolean; timeoutMs?: number } = {}) {
  const { file, args } = wrapCommand(command, {
    sandbox,
    workspace,
    tmpDir,
    allowNetwork: options.allowNetwork ?? false,
  });
  let output = "";
  const collect = (chunk: Buffer): void => {
    output += chunk.toString();
  };
  const handle = spawnGroup(file, args, {
    cwd: workspace,
    timeoutMs: options.timeoutMs ?? 60_000,
    graceMs: 500,
    onStdout: collect,
    onStderr: collect,
  });
  const result = await handle.done;
  return { ...result, output };
}

describe.skipIf(unavailable)(
  `bubblewrap sandbox${unavailable ? ` (skipped: ${sandbox.reason})` : ""}`,
  () => {
    it("is detected with the path of a working bwrap", () => {
      expect(sandbox).toEqual({ kind: "bwrap", path: expect.stringMatching(/\/bwrap$/) });
      expect(detectSandbox()).toBe(sandbox);
    });

    it("lets the command write in the workspace and /tmp, and nowhere else, even as root", async () => {
      const result = await sandboxed(
        [
          "pwd",
          "echo in > inside.txt && echo wrote-inside",
          "echo tmp > /tmp/scratch.txt && echo wrote-tmp",
          `echo out > ${outside}/escaped.txt || echo refused-outside`,
          "echo rc >> ~/.bashrc-cairn-test || echo refused-home",
          `mount -o remount,rw / 2>/dev/null; echo out > ${outside}/remounted.txt || echo refused-remount`,
        ].join("; "),
      );
      expect(result.exitCode).toBe(0);
      expect(result.output).toContain(`${workspace}\nwrote-inside\nwrote-tmp\n`);
      expect(result.output).toMatch(/refused-outside[\s\S]*refused-home[\s\S]*refused-remount/);
      expect(readFileSync(path.join(workspace, "inside.txt"), "utf8")).toBe("in\n");
      expect(readFileSync(path.join(tmpDir, "scratch.txt"), "utf8")).toBe("tmp\n");
      expect(existsSync(path.join(outside, "escaped.txt"))).toBe(false);
      expect(existsSync(path.join(outside, "remounted.txt"))).toBe(false);
    });

    describe("network", () => {
      let greeter: Awaited<ReturnType<typeof loopbackGreeter>>;
      let port: number;
      beforeAll(async () => {
        greeter = await loopbackGreeter("hello\n");
        port = greeter.port;
      });
      afterAll(() => greeter.close());

      it("is off: a server on the host's loopback cannot be reached", async () => {
        const result = await sandboxed(connectCommand(port));
        expect(result.output).toMatch(/^failed E[A-Z]+\n$/);
        expect(result.exitCode).toBe(3);
      });

      it("is on when allowed", async () => {
        const result = await sandboxed(connectCommand(port), { allowNetwork: true });
        expect(result.output).toBe("connected hello\n");
        expect(result.exitCode).toBe(0);
      });
    });

    it("runs npm test of a project in the workspace", async () => {
      writeFileSync(
        path.join(workspace, "package.json"),
        JSON.stringify({ name: "tiny", version: "1.0.0", scripts: { test: "node --test" } }),
      );
      writeFileSync(
        path.join(workspace, "sum.test.mjs"),
        'import test from "node:test";\nimport assert from "node:assert";\n' +
          'test("adds", () => assert.strictEqual(1 + 2, 3));\n',
      );
      const result = await sandboxed("npm test");
      expect(result.output).toMatch(/# pass 1/);
      expect(result.exitCode).toBe(0);
    });

    it("stays stoppable: a timeout ends the command and its background children", async () => {
      const marker = ownSleepLength(931);
      const result = await sandboxed(`sleep ${marker} & sleep ${marker}`, { timeoutMs: 500 });
      expect(result.timedOut).toBe(true);
      const running = () =>
        execFileSync("ps", ["-eo", "args="], { encoding: "utf8" }).includes(`sleep ${marker}`);
      await until("the command's background sleep to end", () => !running(), 5_000);
    });

    it("confines kill -9 -1 to the sandbox's own processes", async () => {
      const bystander = spawn("sleep", ["30"], { stdio: "ignore" });
      try {
        // kill(-1) spares the caller itself, so the shell lives to report on its child.
        const result = await sandboxed('sleep 30 & kill -9 -1; wait $!; echo "sleep ended: $?"');
        // The shell's notice (stderr) and its echo (stdout) come through two pipes, in either order.
        expect(result.output).toMatch(/Killed\s+sleep 30/);
        expect(result.output).toMatch(/^sleep ended: 137$/m);
        expect(bystander.exitCode).toBeNull();
        expect(process.kill(bystander.pid!, 0)).toBe(true);
      } finally {
        bystander.kill();
      }
    });
  },
);

describe.runIf(process.platform === "linux")("detectSandbox where bwrap cannot start", () => {
  it("reports none, with the reason bwrap gave", async () => {
    // What bwrap prints in a container that forbids unprivileged user namespaces.
    const fake = path.join(root, "bin", "bwrap");
    mkdirSync(path.dirname(fake));
    writeFileSync(fake, "#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n");
    chmodSync(fake, 0o755);
    vi.stubEnv("PATH", `${path.dirname(fake)}${path.delimiter}${process.env.PATH}`);
    vi.resetModules();
    try {
      const fresh = await import("../../src/safety/sandbox.js");
      expect(fresh.detectSandbox()).toEqual({
        kind: "none",
        path: fake,
        reason:
          "Commands run unsandboxed: bubblewrap is installed but cannot create a sandbox here " +
          "(bwrap: No permissions to create new namespace). " +
          "This happens in containers that don't allow unprivileged user namespaces.",
      });
    } finally {
      vi.unstubAllEnvs();
    }
  });
});

describe("wrapCommand", () => {
  it("runs the command as it is without a sandbox", () => {
    const wrapped = wrapCommand("echo hi", {
      sandbox: { kind: "none" },
      workspace: "/w",
      allowNetwork: false,
    });
    expect(wrapped.args).toEqual(["-c", "echo hi"]);
    expect(wrapped.file).toMatch(/\/(?:ba)?sh$/);
  });

  it("gives bwrap a read-only root, a writable workspace and temp, and no network unless allowed", () => {
    const options = { sandbox: { kind: "bwrap" as const, path: "/usr/bin/bwrap" }, workspace: "/w" };
    const offline = wrapCommand("npm test", { ...options, tmpDir: "/s", allowNetwork: false }).args.join(" ");
    // /tmp is bound before the workspace, so a workspace under /tmp lands on top of it. (cairn's
    // own installation may be bound read-only in between when it lives under /tmp, as in CI.)
    expect(offline).toContain("--ro-bind / / --dev /dev --proc /proc --bind /s /tmp");
    expect(offline.indexOf("--bind /s /tmp")).toBeLessThan(offline.indexOf("--bind /w /w"));
    expect(offline).toContain("--unshare-net");
    expect(offline).toContain("--setenv npm_config_cache /tmp/.npm");
    expect(offline).toMatch(/ -- \S+ -c npm test$/);
    const online = wrapCommand("npm test", { ...options, allowNetwork: true }).args.join(" ");
    expect(online).not.toContain("--unshare-net");
    expect(online).toContain("--tmpfs /tmp");
    expect(online.indexOf("--tmpfs /tmp")).toBeLessThan(online.indexOf("--bind /w /w"));
  });
});
