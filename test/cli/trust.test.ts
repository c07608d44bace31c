import { existsSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { makeGitRepo, makeHome, modelFlags, runCairn } from "../helpers/cli.js";
import { addGlobalConfig } from "../helpers/session.js";
import { scaled } from "../helpers/timeScale.js";
import { type ScriptedServer, startScriptedServer } from "../support/scriptedServer.js";

const made: string[] = [];
const servers: ScriptedServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A repository whose config allows one command the person's own settings would refuse headless. */
async function setUp() {
  const [repo, home] = await Promise.all([
    makeGitRepo({ ".cairn/config.yaml": "rules:\n  - { command: touch, action: allow }\n" }),
    makeHome(),
  ]);
  made.push(repo, home);
  /** `cairn do` headless: the model touches `file`; whether the folder's rule let it. */
  const touch = async (file: string, extra: string[] = []) => {
    const server = await startScriptedServer([
      { toolCalls: [{ name: "run_command", args: { command: `touch ${file}` } }] },
      { text: "Done." },
    ]);
    servers.push(server);
    const { args, env } = modelFlags("openai", server);
    const run = await runCairn(
      [
        "do",
        "touch it",
        ...args,
        "--cwd",
        repo,
        "--approval",
        "auto-edit",
        "--output-format",
        "json",
        ...extra,
      ],
      { home, env },
    );
    return { ...run, ran: existsSync(path.join(repo, file)) };
  };
  const cairn = (...args: string[]) => runCairn(args, { home });
  return { repo, home, touch, cairn };
}

describe("trusting a folder headless", () => {
  it("cairn trust --help names every file that counts", async () => {
    const help = await runCairn(["trust", "--help"], { home: await makeHome() });
    expect(help.code).toBe(0);
    const said = help.stdout.replace(/\s+/g, " ");
    for (const what of [
      ".cairn/config.yaml",
      "hooks",
      ".mcp.json",
      "agents",
      "commands",
      "skills",
      ".claude/",
    ])
      expect(said).toContain(what);
  });

  it(
    "cairn trust applies the folder's settings, a change that asks for more is left out until trusted again, --revoke undoes it",
    async () => {
      const { repo, touch, cairn } = await setUp();
      const untrusted = await touch("a.txt");
      expect(untrusted.ran).toBe(false);
      expect(untrusted.stderr).toContain(
        'cairn:   .cairn/config.yaml rules[0]: allow command "touch" without asking',
      );
      expect(untrusted.stderr).toContain(`\`cairn trust ${repo}\`, or pass --trust-workspace for one run`);

      const trusted = await cairn("trust", repo);
      expect(trusted.stdout).toBe(
        `Trusted ${repo}.\nWhat its files ask for beyond your own settings now applies:\n` +
          '  .cairn/config.yaml rules[0]: allow command "touch" without asking\n' +
          "If they come to ask for anything else (a git pull, say), cairn asks again.\n",
      );
      const applied = await touch("b.txt");
      expect(applied.ran, applied.stderr).toBe(true);
      expect(applied.stderr).not.toContain("not trusted");

      // A pull adds a rule: the folder asks for more than was trusted, so none of it applies.
      writeFileSync(
        path.join(repo, ".cairn", "config.yaml"),
        "rules:\n  - { command: touch, action: allow }\n  - { command: curl, action: allow, network: true }\n",
      );
      const changed = await touch("c.txt");
      expect(changed.ran).toBe(false);
      expect(changed.stderr).toContain(
        "Its settings changed since you trusted it; to apply them, trust the folder",
      );
      const list = await cairn("trust", "--list");
      expect(list.stdout).toMatch(
        new RegExp(`${repo}\\s+\\d{4}-\\d\\d-\\d\\d\\s+its files changed since: asks again`),
      );
      expect((await touch("d.txt", ["--trust-workspace"])).ran).toBe(true);

      await cairn("trust", repo);
      expect((await cairn("trust", "--list")).stdout).toMatch(new RegExp(`${repo}\\s+\\S+\\s+trusted\\n`));
      expect((await touch("e.txt")).ran).toBe(true);
      const revoked = await cairn("trust", "--revoke", repo);
      expect(revoked.code).toBe(0);
      expect((await touch("f.txt")).ran).toBe(false);
      const twice = await cairn("trust", "--revoke", repo);
      expect([twice.code, twice.stderr]).toEqual([1, `cairn: ${repo} was not trusted with cairn trust.\n`]);
      expect((await cairn("trust", "--list")).stdout).toBe(
        "No folder is trusted. cairn trust [dir] trusts one.\n",
      );
      // Eight runs of cairn and six of cairn trust.
    },
    scaled(90_000),
  );

  it("trusts a folder the person's config lists, which --revoke cannot undo and says where it is", async () => {
    const { repo, home, touch, cairn } = await setUp();
    await addGlobalConfig(home, { trusted_folders: [path.dirname(repo)] });
    const run = await touch("a.txt");
    expect(run.ran).toBe(true);
    expect(run.stderr).not.toContain("not trusted");
    const revoke = await cairn("trust", "--revoke", repo);
    expect(revoke.code).toBe(1);
    expect(revoke.stderr).toContain("It is still trusted by trusted_folders in ~/config/cairn/config.yaml");
    expect((await cairn("trust", "--list")).stdout).toMatch(/\S+\s+-\s+listed in trusted_folders/);
  });
});
