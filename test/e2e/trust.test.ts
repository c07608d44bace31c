import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { APPROVAL_GUARD_MS } from "../../src/safety/approval.js";
import { EXIT_UNCHECKED, makeGitRepo, makeHome, modelFlags, runCairn } from "../helpers/cli.js";
import { fileTimeouts } from "../helpers/timeScale.js";
import { startScriptedServer } from "../support/scriptedServer.js";
import { closedAfterEach, hasTmux, Terminal } from "./tmux.js";

fileTimeouts(120_000);

const open = closedAfterEach();
const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Keys the question takes: typed once it has shown for its guard time. */
const guard = () => new Promise((resolve) => setTimeout(resolve, APPROVAL_GUARD_MS + 100));

const ASKS = "asks for more than your own settings allow";

describe.skipIf(!hasTmux)("trusting a folder at the terminal", () => {
  it("asks before the terminal UI opens, in plain words: once, always (until the settings ask for more), no; revoke asks again", async () => {
    const [repo, home] = await Promise.all([
      makeGitRepo({ ".cairn/config.yaml": "approval: auto\n" }),
      makeHome(),
    ]);
    made.push(repo, home);
    open.server = await startScriptedServer([]);
    const { args, env } = modelFlags("openai", open.server);
    const folders = path.join(home, "config", "cairn", "folders.json");
    /** `cairn chat` in the repository, answering the trust question with `answer` (none: not asked). */
    const chat = async (answer: "o" | "a" | "n" | undefined) => {
      open.terminal?.close();
      rmSync(path.join(home, "exit-code"), { force: true });
      open.terminal = Terminal.start({ args: ["chat", ...args], cwd: repo, home, env, columns: 120 });
      const t = open.terminal;
      const started = { timeoutMs: 20_000 };
      if (answer === undefined) return { asked: undefined, ready: await t.waitFor("Ask cairn", started) };
      const asked = await t.waitFor("[n] no, run without them", started);
      await guard();
      // A bare Enter is "no", the safe answer; the others are typed.
      if (answer !== "n") t.type(answer);
      t.press("Enter");
      return { asked, ready: await t.waitFor("Ask cairn", started) };
    };
    const leave = async () => {
      open.terminal?.type("/exit");
      open.terminal?.press("Enter");
      expect(await open.terminal?.exited()).toBe(0);
    };

    // Once: the folder's approval mode applies to this session, and the next one asks again.
    const once = await chat("o");
    expect(once.asked).toContain(`${repo} ${ASKS}:`);
    expect(once.asked).toContain(".cairn/config.yaml approval: run in auto approval mode (yours is ask)");
    expect(once.asked).toContain("These came with the folder (a cloned repository, say), not from you.");
    expect(once.ready).toContain("approval: auto");
    await leave();

    // Always: recorded in the person's own settings, and not asked about again.
    const always = await chat("a");
    expect(always.asked).toContain(ASKS);
    expect(JSON.parse(readFileSync(folders, "utf8")).folders[repo].trusted.hash).toMatch(/^sha256:/);
    await leave();
    const trusted = await chat(undefined);
    expect(trusted.ready).toContain("approval: auto");
    expect(trusted.ready).not.toContain(ASKS);
    await leave();

    // A git pull that adds an allow-everything rule asks again, saying the files changed; no runs without them.
    writeFileSync(
      path.join(repo, ".cairn", "config.yaml"),
      'approval: auto\nrules:\n  - { tool: "*", action: allow }\n',
    );
    const changed = await chat("n");
    expect(changed.asked).toMatch(/The files of .* changed since you trusted it \(\d{4}-\d\d-\d\d\)/);
    expect(changed.asked).toContain('rules[0]: allow tool "*" without asking');
    expect(changed.ready).toContain("approval: ask");
    // The answer is acknowledged, not followed by the list the question just gave.
    expect(open.terminal?.history()).toContain("Running without them; `cairn trust` applies them later");
    expect(open.terminal?.history()).not.toContain("cairn: This folder is not trusted");
    expect(open.terminal?.history()).not.toContain("Type o, a or n");
    await leave();

    // Revoked (after trusting it again, headless), the next session asks as the first did.
    expect((await runCairn(["trust", repo], { home })).code).toBe(0);
    await chat(undefined).then(leave);
    const revoked = await runCairn(["trust", "--revoke", repo], { home });
    expect(revoked.stdout).toContain(`No longer trusting ${repo}`);
    const again = await chat("n");
    expect(again.asked).toContain(`${repo} ${ASKS}:`);
    await leave();
    // Six sessions of the terminal UI, each started as a person would.
  });

  it("at 80 columns, says each thing once, broken between words, and leaves with a line that fits", async () => {
    const [repo, home] = await Promise.all([
      makeGitRepo({ ".cairn/config.yaml": 'approval: auto\nrules:\n  - { tool: "*", action: allow }\n' }),
      makeHome(),
    ]);
    made.push(repo, home);
    open.server = await startScriptedServer([]);
    const { args, env } = modelFlags("openai", open.server);
    open.terminal = Terminal.start({ args: ["chat", ...args], cwd: repo, home, env, columns: 80 });
    const t = open.terminal;
    await t.waitFor("Trust them? [o/a/N]", { timeoutMs: 20_000 });
    await guard();
    t.press("Enter");
    await t.waitFor("Ask cairn", { timeoutMs: 20_000 });
    // A greeting opening the chat is answered without a model: the session starts, and says its trust.
    t.type("hello");
    t.press("Enter");
    await t.waitFor("Tell me what to do", { timeoutMs: 20_000 });
    const history = t.history();
    const notice =
      "This folder is not trusted, so cairn left out what its files ask for (2 settings beyond yours):";
    expect(history.split("This folder is not trusted").length - 1).toBe(1);
    // Broken between words: read with its line breaks as spaces, every word is whole.
    const flat = history.replace(/\s+/g, " ");
    expect(flat).toContain(notice);
    expect(flat).toContain(
      `To apply them, trust the folder with \`cairn trust ${repo}\`, or pass --trust-workspace for one run.`,
    );
    // And no line the terminal UI wrapped starts with the space it broke at.
    expect(history.split("\n").filter((line) => /^ \S/.test(line))).toEqual([]);
    t.type("/exit");
    t.press("Enter");
    expect(await t.exited()).toBe(0);
    const last = t.screen().trim().split("\n").filter(Boolean).at(-1) ?? "";
    expect(last).toMatch(/^Saved as \d{8}-\d{6}-[0-9a-f]{6} · cairn -c continues it$/);
    expect(open.server.requests).toHaveLength(0);
  }, 60_000);

  it("cairn do asks the same question before it starts, and --trust-workspace trusts without asking", async () => {
    const [repo, home] = await Promise.all([
      makeGitRepo({ ".cairn/config.yaml": "rules:\n  - { command: touch, action: allow }\n" }),
      makeHome(),
    ]);
    made.push(repo, home);
    const touch = (file: string) => [
      { toolCalls: [{ name: "run_command", args: { command: `touch ${file}` } }] },
      { text: `Made ${file}.` },
    ];
    open.server = await startScriptedServer([...touch("once.txt"), ...touch("flag.txt")]);
    const { args, env } = modelFlags("openai", open.server);
    const run = (file: string, extra: string[]) => {
      open.terminal?.close();
      rmSync(path.join(home, "exit-code"), { force: true });
      open.terminal = Terminal.start({
        args: ["do", `make ${file}`, ...args, "--approval", "auto-edit", ...extra],
        cwd: repo,
        home,
        env,
        columns: 120,
      });
      return open.terminal;
    };
    // Trusted once, the folder's rule lets the command run without its own question.
    const asking = run("once.txt", []);
    const asked = await asking.waitFor("[n] no, run without them", { timeoutMs: 20_000 });
    expect(asked).toContain('.cairn/config.yaml rules[0]: allow command "touch" without asking');
    await guard();
    asking.type("o");
    asking.press("Enter");
    await asking.waitFor("Made once.txt.", { timeoutMs: 20_000 });
    expect(asking.history()).not.toContain("Allow run_command");
    // Each run made its file and checked nothing.
    expect(await asking.exited()).toBe(EXIT_UNCHECKED);

    const flagged = run("flag.txt", ["--trust-workspace"]);
    await flagged.waitFor("Made flag.txt.", { timeoutMs: 20_000 });
    expect(flagged.history()).not.toContain(ASKS);
    expect(await flagged.exited()).toBe(EXIT_UNCHECKED);
    expect([
      readFileSync(path.join(repo, "once.txt"), "utf8"),
      readFileSync(path.join(repo, "flag.txt"), "utf8"),
    ]).toEqual(["", ""]);
    // Neither answer was "always": nothing was recorded.
    expect(existsSync(path.join(home, "config", "cairn", "folders.json"))).toBe(false);
  });
});
