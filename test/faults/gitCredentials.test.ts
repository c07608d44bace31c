import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { detectSandbox } from "../../src/safety/sandbox.js";
import { makeGitRepo } from "../helpers/cli.js";
import { type CliEvent, closeServers, runFaulty, toolResults } from "./harness.js";

/**
 * The repository: the token a `git clone https://<token>@…` writes into the remote's URL,
 * the header a CI checkout writes into `http.<url>.extraheader`, a submodule whose own config
 * holds both, and the person's `~/.git-credentials`. Commands see them without the credentials;
 * every file tool must too, by real path (through a link, through `../`), in every approval
 * mode: no canary in a request to the model, in an event, or in the debug log.
 */

afterEach(closeServers);

const canary = (label: string) => `${label}${randomBytes(6).toString("hex")}7`;
const REMOTE = canary("ghpRemoteCanary");
const HEADER = canary("HeaderCanary");
const SUB_REMOTE = canary("ghpSubCanary");
const SUB_HEADER = canary("SubHeaderCanary");
const STORED = canary("StoredCanary");
const CANARIES = [REMOTE, HEADER, SUB_REMOTE, SUB_HEADER, STORED];

const sandboxed = detectSandbox().kind === "bwrap";

let repo: string;
/** Outside /tmp, which the sandbox replaces, so that `~/.git-credentials` is hidden by its own name. */
let home: string;
let configBefore: string;
beforeAll(async () => {
  home = mkdtempSync("/var/tmp/cairn-home-");
  writeFileSync(path.join(home, ".git-credentials"), `https://person:${STORED}@github.com\n`);
  writeFileSync(
    path.join(home, ".gitconfig"),
    "[credential]\n\thelper = store\n[user]\n\tname = Canary Person\n",
  );
  const library = await makeGitRepo({ "lib.txt": "lib\n" });
  repo = await makeGitRepo({
    "README.md": "# app\n",
    "src/app.js": "export const token = process.env.TOKEN;\n",
  });
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "protocol.file.allow=always", ...args], { cwd: repo, stdio: "ignore" });
  git("submodule", "add", "-q", library, "vendor/lib");
  git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "add lib");
  git("remote", "add", "origin", `https://x-access-token:${REMOTE}@github.com/o/app.git`);
  git("config", "http.https://github.com/.extraheader", `AUTHORIZATION: basic ${HEADER}`);
  const sub = path.join(repo, ".git", "modules", "vendor", "lib");
  execFileSync("git", [
    "config",
    "--file",
    path.join(sub, "config"),
    "remote.origin.url",
    `https://${SUB_REMOTE}@git.corp/lib.git`,
  ]);
  execFileSync("git", [
    "config",
    "--file",
    path.join(sub, "config"),
    "http.extraheader",
    `PRIVATE-TOKEN: ${SUB_HEADER}`,
  ]);
  // Links the repository could carry, and one the model could make: to the configs, to the store.
  symlinkSync(".git/config", path.join(repo, "config-link"));
  symlinkSync(".git", path.join(repo, "git-link"));
  symlinkSync(path.join(sub, "config"), path.join(repo, "sub-config-link"));
  symlinkSync(path.join(home, ".git-credentials"), path.join(repo, "credentials-link"));
  configBefore = readFileSync(path.join(repo, ".git", "config"), "utf8");
  rmSync(library, { recursive: true, force: true });
});
afterAll(() => {
  rmSync(home, { recursive: true, force: true });
  rmSync(repo, { recursive: true, force: true });
});

/** Every tool that reads or searches files, at the credentials by every way there. */
function probes() {
  const reads = [
    ".git/config",
    "config-link",
    "git-link/config",
    "src/../.git/config",
    ".git/modules/vendor/lib/config",
    "sub-config-link",
    "credentials-link",
    path.join(home, ".git-credentials"),
    path.join(home, ".gitconfig"),
  ];
  const calls = [
    ...reads.map((file) => ({ name: "read_file", args: { path: file } })),
    { name: "read_ini", args: { path: ".git/config" } },
    { name: "read_ini", args: { path: "config-link" } },
    ...[".git", "git-link", "config-link", ".git/modules", "sub-config-link", home].map((where) => ({
      name: "grep",
      args: { pattern: "url|header|AUTH|TOKEN|Canary|password|@", path: where, ignore_case: true },
    })),
    { name: "grep", args: { pattern: "Canary", path: ".", ignore_case: true } },
    { name: "search_files", args: { pattern: "**/config" } },
    { name: "file_tree", args: { path: ".git" } },
    { name: "list_files", args: { path: "git-link" } },
    { name: "copy_file", args: { source: "config-link", destination: "copied-config.txt" } },
    { name: "read_file", args: { path: "copied-config.txt" } },
    { name: "git_status", args: {} },
    { name: "git_log", args: {} },
    { name: "git_diff", args: {} },
  ];
  const commands = [
    "cat .git/config config-link .git/modules/vendor/lib/config sub-config-link",
    "git remote -v; git config --list; git -C vendor/lib remote -v",
    "cat ~/.git-credentials credentials-link",
    "grep -r Canary .git ~/.git-credentials || true",
  ];
  return [
    ...calls,
    ...(sandboxed ? commands.map((command) => ({ name: "run_command", args: { command } })) : []),
  ];
}

/** Each call's result by its title (`read_file .git/config`): reads that run together end in any order. */
function resultsByTitle(events: CliEvent[]): Map<string, { ok: boolean; output: string }> {
  const titles = new Map(
    events.filter((event) => event.type === "tool.call").map((event) => [event.call_id, String(event.title)]),
  );
  return new Map(
    events
      .filter((event) => event.type === "tool.result")
      .map((event) => [
        titles.get(event.call_id) ?? "",
        { ok: Boolean(event.ok), output: String(event.output) },
      ]),
  );
}

describe("git's credentials through every tool that reads or searches files", () => {
  for (const mode of ["read-only", "ask", "auto-edit", "auto"]) {
    it(`reach neither the model nor an event nor the debug log, with --approval ${mode}`, async () => {
      const debugLog = path.join(home, `debug-${mode}.log`);
      const calls = probes();
      const run = await runFaulty(
        repo,
        "look at the git settings",
        [{ toolCalls: calls }, { text: "Done." }],
        {
          approval: mode,
          config: { workspace: { extra_roots: [home] } },
          env: { HOME: home },
          args: ["--debug-log", debugLog],
        },
      );
      const sent = run.server.requests.map((request) => request.rawBody).join("\n");
      const log = readFileSync(debugLog, "utf8");
      for (const secret of CANARIES) {
        expect(sent, `${secret} reached the model`).not.toContain(secret);
        expect(run.stdout, `${secret} reached an event`).not.toContain(secret);
        expect(run.stderr).not.toContain(secret);
        expect(log, `${secret} reached the debug log`).not.toContain(secret);
      }
      // The tools did read the configs, without their credentials, and every call was made.
      const results = resultsByTitle(run.events);
      expect(results.size).toBe(calls.length);
      const config = results.get("read_file .git/config");
      expect(config?.ok, config?.output).toBe(true);
      expect(config?.output).toContain("url = https://x-access-token:[REDACTED]@github.com/o/app.git");
      expect(config?.output).toContain("extraheader = AUTHORIZATION: [REDACTED]");
      for (const other of ["config-link", "git-link/config", "src/../.git/config"])
        expect(results.get(`read_file ${other}`)?.output).toBe(config?.output);
      expect(results.get("read_file sub-config-link")?.output).toContain("PRIVATE-TOKEN: [REDACTED]");
      // The store is a secret file, as the sandbox hides it: refused to the model, not shown.
      const stored = results.get("read_file credentials-link");
      expect(stored?.ok).toBe(false);
      expect(stored?.output).toMatch(/credentials-link looks like a secret file/);
      // The real configs are as they were: git outside the sandbox keeps its credentials.
      expect(readFileSync(path.join(repo, ".git", "config"), "utf8")).toBe(configBefore);
    });
  }

  it("a write to a git config that holds credentials is refused, so the placeholder is never written back", async () => {
    const run = await runFaulty(
      repo,
      "change it",
      [
        { toolCalls: [{ name: "write_file", args: { path: "config-link", content: "[core]\n" } }] },
        { text: "Done." },
      ],
      { env: { HOME: home } },
    );
    expect(toolResults(run.events)[0]?.output).toMatch(/inside \.git|git config file that holds credentials/);
    expect(readFileSync(path.join(repo, ".git", "config"), "utf8")).toBe(configBefore);
  });
});
