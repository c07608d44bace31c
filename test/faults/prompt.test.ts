import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { APPROVAL_GUARD_MS } from "../../src/safety/approval.js";
import { hasTmux, Terminal } from "../e2e/tmux.js";
import { EXIT_UNCHECKED, makeHome, makeRepo, modelFlags } from "../helpers/cli.js";
import { closeServers, serve } from "./harness.js";

const terminals: Terminal[] = [];
afterEach(async () => {
  for (const terminal of terminals.splice(0)) terminal.close();
  await closeServers();
});

/** Keys the prompt takes: typed once it has shown for its guard time. */
const guard = () => new Promise((resolve) => setTimeout(resolve, APPROVAL_GUARD_MS + 100));
const command = (text: string) => ({ toolCalls: [{ name: "run_command", args: { command: text } }] });

describe.skipIf(!hasTmux)("the approval prompt of cairn do in a terminal", () => {
  it("saves an always-in-this-workspace answer as the person's rule for the folder, asks again about a dangerous command, and tells the model why not", async () => {
    const repo = await makeRepo({ ".cairn/config.yaml": "# team settings\nmax_tool_calls: 20\n" });
    const home = await makeHome();
    const server = await serve([
      command("echo one >> log.txt"),
      command("echo one >> log.txt"),
      command("rm -rf ~/projects"),
      { text: "Left the projects alone." },
    ]);
    const { args, env } = modelFlags("openai", server);
    const t = Terminal.start({
      args: ["do", "log one line twice", ...args, "--approval", "ask"],
      cwd: repo,
      home,
      env,
      columns: 160,
    });
    terminals.push(t);

    let screen = await t.waitFor(/\[w\] always in this workspace/);
    expect(screen).toMatch(/Allow run_command echo one >> log\.txt\?/);
    expect(screen).toMatch(/"always" allows from now on: `echo one`/);
    await guard();
    t.type("w");
    t.press("Enter");

    // The second run of the same command is not asked about; the dangerous one is, every time.
    screen = await t.waitFor(/Allow run_command rm -rf ~\/projects\?/);
    expect(screen).toMatch(/! `rm -rf ~\/projects` recursively deletes .*projects, outside the workspace/);
    expect(screen).not.toMatch(/rm -rf[\s\S]*\[w\] always/);
    // Enter alone is not an answer: it asks again.
    await guard();
    t.press("Enter");
    await t.waitFor("Type y or n, then Enter.");
    t.type("n");
    t.press("Enter");
    await t.waitFor("Why not? The model is told");
    t.type("those are my other projects");
    t.press("Enter");

    // The two lines logged are the do's change, and nothing checked it.
    expect(await t.exited(20_000)).toBe(EXIT_UNCHECKED);
    expect(await readFile(path.join(repo, "log.txt"), "utf8")).toBe("one\none\n");
    // The answer is the person's: kept in their own settings for this folder, the workspace's file untouched.
    expect(await readFile(path.join(repo, ".cairn", "config.yaml"), "utf8")).toBe(
      "# team settings\nmax_tool_calls: 20\n",
    );
    const folders = JSON.parse(await readFile(path.join(home, "config", "cairn", "folders.json"), "utf8"));
    expect(folders.folders[repo]).toEqual({ rules: [{ action: "allow", command: "echo one" }] });
    expect(JSON.stringify(server.requests[3]?.body)).toContain(
      "The user declined `run_command rm -rf ~/projects`: those are my other projects",
    );
  });

  it("Ctrl-C at the prompt interrupts the session as it does anywhere else: the command is not run, no stack trace", async () => {
    const repo = await makeRepo({});
    const home = await makeHome();
    const server = await serve([command("touch ran.txt"), { text: "unused" }]);
    const { args, env } = modelFlags("openai", server);
    const t = Terminal.start({
      args: ["do", "touch a file", ...args, "--approval", "ask"],
      cwd: repo,
      home,
      env,
    });
    terminals.push(t);
    await t.waitFor(/\[n\] no, and say why/);
    await guard();
    t.press("C-c");
    const code = await t.exited(10_000);
    const screen = t.screen();
    expect(screen).not.toMatch(/AbortError|^\s+at .+:\d+:\d+\)?$/m);
    expect(screen).toMatch(/cancelled|interrupted/i);
    expect(code).toBe(1);
    await expect(readFile(path.join(repo, "ran.txt"))).rejects.toThrow();
  });
});
