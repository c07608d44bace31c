import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { detectSandbox } from "../../src/safety/sandbox.js";
import { EXIT_UNCHECKED, makeGitRepo, makeRepo } from "../helpers/cli.js";
import { tempDir } from "../helpers/temp.js";
import { closeServers, connectCommand, loopbackGreeter, runFaulty, toolResults } from "./harness.js";

afterEach(closeServers);

const sandbox = detectSandbox();
const unavailable = sandbox.kind !== "bwrap";
if (unavailable) console.warn(`SKIPPED sandboxed run_command tests: ${sandbox.reason}`);

const PROJECT = {
  "package.json": JSON.stringify({
    name: "p",
    private: true,
    type: "module",
    scripts: { test: "node --test" },
  }),
  "sum.test.js":
    "import test from 'node:test';\nimport assert from 'node:assert';\ntest('sum', () => assert.equal(1 + 1, 2));\n",
};

let greeter: Awaited<ReturnType<typeof loopbackGreeter>>;
beforeAll(async () => {
  greeter = await loopbackGreeter("hello from the host\n");
});
afterAll(() => greeter.close());

const connect = () => connectCommand(greeter.port);

describe.skipIf(unavailable)("run_command under bubblewrap", () => {
  it("cannot write outside the workspace nor reach the network, while npm test in the workspace passes", async () => {
    const repo = await makeRepo(PROJECT);
    const probe = `/var/tmp/cairn-probe-${randomBytes(4).toString("hex")}`;
    try {
      const commands = [
        `node -e "require('fs').writeFileSync('${probe}', 'x')"`,
        "node -e \"require('fs').writeFileSync(require('os').homedir() + '/planted', 'x')\"",
        connect(),
        `curl -sS --max-time 5 http://127.0.0.1:${greeter.port}/`,
        "npm test",
        "echo scratch > /tmp/scratch.txt && cat /tmp/scratch.txt && echo inside > inside.txt",
      ];
      const run = await runFaulty(repo, "check the sandbox", [
        { toolCalls: commands.map((command) => ({ name: "run_command", args: { command } })) },
        { text: "Done." },
      ]);
      // inside.txt, written in the workspace, is the do's change; nothing outside it is.
      expect(run.code, run.stderr).toBe(EXIT_UNCHECKED);
      expect(run.result).toMatchObject({ status: "unverified", files_changed: ["inside.txt"] });
      const [probeWrite, homeWrite, socket, download, npmTest, scratch] = toolResults(run.events).map(
        (result) => result.output,
      );
      expect(probeWrite).toMatch(/^Exit code 1 .*\n.*EROFS: read-only file system/s);
      expect(homeWrite).toMatch(/^Exit code 1 .*\n.*(EROFS|ENOENT)/s);
      expect(socket).toMatch(/^Exit code 3 .*\nfailed E(CONNREFUSED|NETUNREACH)/s);
      if (download && !/command not found/.test(download)) {
        expect(download).toMatch(
          /^Exit code [1-9][\s\S]*Note: commands run without network access in the sandbox/,
        );
      }
      expect(npmTest).toMatch(/^Exit code 0 [\s\S]*# pass 1/);
      expect(scratch).toMatch(/^Exit code 0 .*\nscratch\n/);
      expect(existsSync(probe)).toBe(false);
      expect(existsSync(path.join(run.home, "planted"))).toBe(false);
      expect(await readFile(path.join(repo, "inside.txt"), "utf8")).toBe("inside\n");
      expect(run.stderr).not.toMatch(/warning/);
    } finally {
      rmSync(probe, { force: true });
    }
  });

  it("keeps .git/config and .git/hooks read-only, and .git in place, while commits still work", async () => {
    const repo = await makeRepo({ "a.txt": "a\n" });
    execFileSync("git", ["init", "-q", repo]);
    const config = await readFile(path.join(repo, ".git", "config"), "utf8");
    const commands = [
      "git config core.fsmonitor 'touch planted'",
      "echo 'touch planted' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit",
      "mv .git .git-old",
      "git add a.txt && git -c user.email=c@example.com -c user.name=c commit -qm first && git checkout -qb topic && git log --oneline",
    ];
    const run = await runFaulty(repo, "commit", [
      { toolCalls: commands.map((command) => ({ name: "run_command", args: { command } })) },
      { text: "Done." },
    ]);
    const [configured, hooked, moved, committed] = toolResults(run.events).map((result) => result.output);
    expect(configured).toMatch(/^Exit code [1-9].*\n.*could not write config file/s);
    expect(hooked).toMatch(/^Exit code 1 .*Read-only file system/s);
    expect(moved).toMatch(/^Exit code 1 .*Device or resource busy/s);
    expect(committed).toMatch(/^Exit code 0 .*\n[0-9a-f]+ first/s);
    expect(await readFile(path.join(repo, ".git", "config"), "utf8")).toBe(config);
    expect(existsSync(path.join(repo, ".git", "hooks", "pre-commit"))).toBe(false);
    expect(execFileSync("git", ["-C", repo, "branch", "--show-current"], { encoding: "utf8" })).toBe(
      "topic\n",
    );
  });

  it("keeps the project's .cairn config read-only, even where there was none", async () => {
    const repo = await makeRepo({});
    const loosen = "mkdir -p .cairn && printf 'sandbox:\\n  network: true\\n' > .cairn/config.yaml";
    const run = await runFaulty(repo, "loosen", [
      { toolCalls: [{ name: "run_command", args: { command: loosen } }] },
      { text: "Done." },
    ]);
    expect(toolResults(run.events)[0]?.output).toMatch(/^Exit code 1 .*Read-only file system/s);
    expect(existsSync(path.join(repo, ".cairn", "config.yaml"))).toBe(false);
  });

  it("hides secret files and the machine's credentials from a script that builds their names at run time, /etc/shadow and cairn's stored keys too", async () => {
    const repo = await makeRepo({
      ...PROJECT,
      ".env": "API_TOKEN=canary-dotenv-7731\n",
      "config/secrets.yaml": "password: canary-yaml-7731\n",
    });
    // A home outside /tmp, which the sandbox replaces anyway: the credentials must be hidden by name.
    const home = mkdtempSync("/var/tmp/cairn-home-");
    try {
      mkdirSync(path.join(home, ".ssh"));
      mkdirSync(path.join(home, ".aws"));
      writeFileSync(path.join(home, ".ssh", "id_rsa"), "canary-ssh-key-7731\n");
      writeFileSync(path.join(home, ".ssh", "known_hosts"), "example.com ssh-ed25519 AAAAC3\n");
      writeFileSync(path.join(home, ".aws", "credentials"), "aws_secret_access_key = canary-aws-7731\n");
      // The keys `cairn auth login` stored: where XDG_DATA_HOME says, and where they are by default.
      const storedKeys = (key: string) =>
        `${JSON.stringify({ keys: { anthropic: { key, stored_at: "2026-01-01T00:00:00.000Z" } } })}\n`;
      const data = path.join(home, "data");
      mkdirSync(path.join(data, "cairn"), { recursive: true });
      writeFileSync(path.join(data, "cairn", "credentials.json"), storedKeys("sk-ant-canary-stored-7731"), {
        mode: 0o600,
      });
      mkdirSync(path.join(home, ".local", "share", "cairn"), { recursive: true });
      writeFileSync(
        path.join(home, ".local", "share", "cairn", "credentials.json"),
        storedKeys("sk-ant-canary-default-7731"),
        { mode: 0o600 },
      );
      // Each name is put together as the script runs: nothing on the command line says what it reads.
      const read = (expression: string) =>
        `node -e "const fs = require('fs'); const f = ${expression}; try { console.log(JSON.stringify(fs.readFileSync(f, 'utf8'))) } catch (e) { console.log(e.code) }"`;
      const commands = [
        read("['.e', 'nv'].join('')"),
        read("['config/sec', 'rets.yaml'].join('')"),
        read("require('os').homedir() + '/.ss' + 'h/id_' + 'rsa'"),
        read("require('os').homedir() + '/.aw' + 's/credentials'"),
        read("require('os').homedir() + '/.ssh/known_hosts'"),
        read("'/etc/sha' + 'dow'"),
        read(`'${data}/cairn/cred' + 'entials.json'`),
        read("require('os').homedir() + '/.local/share/cairn/cred' + 'entials.json'"),
        "node -e \"require('fs').writeFileSync(['.e', 'nv'].join(''), 'overwritten')\"",
        "npm test",
      ];
      const run = await runFaulty(
        repo,
        "look around",
        [
          { toolCalls: commands.map((command) => ({ name: "run_command", args: { command } })) },
          { text: "Done." },
        ],
        { env: { HOME: home, XDG_DATA_HOME: data } },
      );
      expect(run.code, run.stderr).toBe(0);
      const outputs = toolResults(run.events).map((result) => result.output.split("\n")[1]);
      expect(outputs.slice(0, 8)).toEqual([
        '""',
        '""',
        "ENOENT",
        "ENOENT",
        '"example.com ssh-ed25519 AAAAC3\\n"',
        '""',
        '""',
        '""',
      ]);
      expect(toolResults(run.events)[8]?.output).toMatch(/^Exit code 1 .*EROFS/s);
      expect(toolResults(run.events)[9]?.output).toMatch(/^Exit code 0 [\s\S]*# pass 1/);
      expect(JSON.stringify(run.server.requests)).not.toMatch(/canary-|root:/);
      expect(await readFile(path.join(repo, ".env"), "utf8")).toBe("API_TOKEN=canary-dotenv-7731\n");
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it("shows git's configs without the tokens they hold, while git itself works", async () => {
    const repo = await makeGitRepo({ "a.txt": "a\n" });
    const repoToken = "ghp_RepoCanary7731abcdefghijklmnopqrstuv";
    const userToken = "ghp_HomeCanary7731abcdefghijklmnopqrstuv";
    // base64 of `x-access-token:canary-header-7731`, as CI writes an extra header.
    const header = Buffer.from("x-access-token:canary-header-7731").toString("base64");
    const host = (...args: string[]) => execFileSync("git", args, { cwd: repo, encoding: "utf8" });
    host("remote", "add", "origin", `https://${repoToken}@github.com/o/r.git`);
    host("config", "http.https://git.corp/.extraheader", "AUTHORIZATION: bearer canary-bearer-7731");
    const config = await readFile(path.join(repo, ".git", "config"), "utf8");
    // A home outside /tmp, which the sandbox replaces: ~/.gitconfig must be shown redacted by name.
    const home = mkdtempSync("/var/tmp/cairn-home-");
    const gitconfig = [
      '[http "https://github.com/"]',
      `\textraheader = AUTHORIZATION: basic ${header}`,
      `[url "https://${userToken}@github.com/"]`,
      "\tinsteadOf = https://github.com/",
      "[user]",
      "\tname = Canary Person",
      "\temail = person@example.com",
      "",
    ].join("\n");
    writeFileSync(path.join(home, ".gitconfig"), gitconfig);
    try {
      const commands = [
        "cat .git/config",
        "git remote -v",
        "git config --list --show-origin",
        "cat ~/.gitconfig",
        "echo b > b.txt && git add b.txt && git commit -qm second && git status --short --branch && git log --format='%s by %an'",
      ];
      const run = await runFaulty(
        repo,
        "look at git",
        [
          { toolCalls: commands.map((command) => ({ name: "run_command", args: { command } })) },
          { text: "Done." },
        ],
        { env: { HOME: home } },
      );
      // The commit's file was made and nothing checked it: unverified, which is what a do says then.
      expect(run.code, run.stderr).toBe(EXIT_UNCHECKED);
      const seen = JSON.stringify(run.server.requests);
      // What the model was sent: the tool results as the commands printed them.
      expect(seen).toContain("url = https://[REDACTED]@github.com/o/r.git");
      expect(seen).toContain("origin\\thttps://[REDACTED]@github.com/o/r.git (push)");
      expect(seen).toContain("extraheader = AUTHORIZATION: [REDACTED]");
      expect(seen).toContain("url.https://[REDACTED]@github.com/.insteadof=https://github.com/");
      expect(seen).toContain("user.name=Canary Person");
      expect(seen).not.toMatch(/Canary7731|canary-|Y2FuYXJ5|eC1hY2Nlc3Mt/);
      const [, , , , committed] = toolResults(run.events).map((result) => result.output);
      expect(committed).toMatch(/^Exit code 0 .*\n## main\nsecond by Canary Person\nfirst by cairn test\n/s);
      // The real files are as they were: git outside the sandbox still has its credentials.
      expect(await readFile(path.join(repo, ".git", "config"), "utf8")).toBe(config);
      expect(await readFile(path.join(home, ".gitconfig"), "utf8")).toBe(gitconfig);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it("shows a git config without credentials as it is", async () => {
    const repo = await makeGitRepo({ "a.txt": "a\n" });
    execFileSync("git", ["remote", "add", "origin", "git@github.com:o/r.git"], { cwd: repo });
    const config = await readFile(path.join(repo, ".git", "config"), "utf8");
    const run = await runFaulty(repo, "look at git", [
      { toolCalls: [{ name: "run_command", args: { command: "cat .git/config" } }] },
      { text: "Done." },
    ]);
    expect(toolResults(run.events)[0]?.output).toMatch(/^Exit code 0 /);
    expect(toolResults(run.events)[0]?.output.split("\n").slice(1).join("\n")).toBe(config);
  });

  it("opens the network when the config allows it", async () => {
    const repo = await makeRepo({});
    const run = await runFaulty(
      repo,
      "check the network",
      [{ toolCalls: [{ name: "run_command", args: { command: connect() } }] }, { text: "Done." }],
      { config: { sandbox: { network: true } } },
    );
    expect(toolResults(run.events)[0]?.output).toMatch(/^Exit code 0 .*\nconnected hello from the host/s);
  });
});

describe("without a sandbox", () => {
  // No bwrap on PATH (an empty folder): commands run with /bin/sh, unconfined.
  const noSandbox = { PATH: tempDir("cairn-empty-path-") };
  const script = [
    { toolCalls: [{ name: "run_command", args: { command: "echo ran > ran.txt" } }] },
    { text: "Done." },
  ];

  it("auto asks before commands as auto-edit does, so headless refuses them, after one clear warning", async () => {
    const repo = await makeRepo({});
    const run = await runFaulty(repo, "run it", script, { env: noSandbox });
    // The one command the task needed was refused: the task was not done.
    expect(run.code, run.stderr).toBe(1);
    const warnings = run.stderr.split("\n").filter((line) => line.startsWith("cairn: warning:"));
    expect(warnings).toEqual([
      expect.stringMatching(
        /bubblewrap \(bwrap\) is not installed.*--approval auto asks before each command.*--allow-unsandboxed \(or sandbox\.allow_unsandboxed: true in the config\)/,
      ),
    ]);
    expect(toolResults(run.events)[0]?.output).toMatch(
      /^Refused: run_command .* commands are not sandboxed here/,
    );
    expect(existsSync(path.join(repo, "ran.txt"))).toBe(false);
  });

  it("auto runs commands unsandboxed when the config says so", async () => {
    const repo = await makeRepo({});
    const run = await runFaulty(repo, "run it", script, {
      env: noSandbox,
      config: { sandbox: { allow_unsandboxed: true } },
    });
    expect(toolResults(run.events)[0]?.ok).toBe(true);
    expect(await readFile(path.join(repo, "ran.txt"), "utf8")).toBe("ran\n");
    expect(run.stderr).toMatch(/cairn: warning: Commands run unsandboxed/);
  });
});
