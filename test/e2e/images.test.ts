import { chmod, mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { makeHome, makeRepo, modelFlags, runCairn } from "../helpers/cli.js";
import { startScriptedServer } from "../support/scriptedServer.js";
import { closedAfterEach, hasTmux, Terminal } from "./tmux.js";

const open = closedAfterEach();

/** A 1×1 PNG. */
const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
const SENT = `data:image/png;base64,${PNG}`;

async function screenshot(dir: string, name: string): Promise<string> {
  const file = path.join(dir, name);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, Buffer.from(PNG, "base64"));
  return file;
}

describe("images beside a message", () => {
  it("cairn -p sends @shot.png to a model that takes images, and refuses it, saying why, to one that reads text only", async () => {
    const [repo, home] = await Promise.all([makeRepo({}), makeHome()]);
    await screenshot(repo, "shot.png");
    open.server = await startScriptedServer([{ text: "A single pixel." }]);
    const { args, env } = modelFlags("openai", open.server);
    const seen = await runCairn(["-p", "what is in @shot.png?", ...args, "--cwd", repo], { home, env });
    expect(seen.code, seen.stderr).toBe(0);
    expect(seen.stdout).toContain("A single pixel.");
    expect(open.server.requests[0]?.rawBody).toContain(SENT);
    expect(open.server.requests[0]?.rawBody).toContain("[image 1: shot.png, image/png, 70 bytes]");

    const textOnly = await runCairn(
      [
        "-p",
        "what is in @shot.png?",
        "--model",
        "openai-compatible/local",
        "--base-url",
        open.server.openaiBaseUrl,
        "--cwd",
        repo,
      ],
      { home },
    );
    expect(textOnly.code).toBe(2);
    expect(textOnly.stderr).toContain(
      "openai-compatible/local reads text only, so @shot.png cannot be sent to it",
    );
    expect(open.server.requests).toHaveLength(1);
  });
});

describe.skipIf(!hasTmux)("images in the terminal UI", () => {
  it("takes a dropped screenshot's path and Ctrl-V's clipboard image as images of the message", async () => {
    const [repo, home] = await Promise.all([makeRepo({}), makeHome()]);
    const dropped = await screenshot(home, "Desktop/Screen Shot 1.png");
    // A clipboard that holds an image, as wl-paste gives it on Wayland.
    const bin = path.join(home, "bin");
    await mkdir(bin);
    await writeFile(path.join(bin, "wl-paste"), `#!/bin/sh\ncat '${dropped}'\n`);
    await chmod(path.join(bin, "wl-paste"), 0o755);
    open.server = await startScriptedServer([{ text: "A pixel, dropped." }, { text: "A pixel, pasted." }]);
    const { args, env } = modelFlags("openai", open.server);
    open.terminal = Terminal.start({
      args,
      cwd: repo,
      home,
      env: { ...env, PATH: `${bin}:${process.env.PATH ?? ""}` },
      // Wide enough that the dropped file's path, deep in the test's temp folder, fits on one line.
      columns: 160,
    });
    const t = open.terminal;
    await t.waitFor("Ask cairn");
    // A file dropped on the terminal is pasted as its path, shell-escaped.
    t.paste(dropped.replace(/ /g, "\\ "));
    await t.waitFor(`@"${dropped}"`);
    t.type("what is this?");
    t.press("Enter");
    await t.waitFor("A pixel, dropped.");
    expect(open.server.requests[0]?.rawBody).toContain(SENT);

    t.press("C-v");
    await t.waitFor(/@"?\S*pasted-images\/pasted-/);
    t.type("and this?");
    t.press("Enter");
    await t.waitFor("A pixel, pasted.");
    expect(open.server.requests[1]?.rawBody).toContain(SENT);
  });
});
