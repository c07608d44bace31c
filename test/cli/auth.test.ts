import { statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { closedAfterEach, hasTmux, Terminal } from "../e2e/tmux.js";
import { makeHome, makeRepo, modelFlags, runCairn } from "../helpers/cli.js";
import { startScriptedServer } from "../support/scriptedServer.js";

const open = closedAfterEach();
const credentials = (home: string) => path.join(home, "data", "cairn", "credentials.json");

describe("cairn auth", () => {
  it("stores a piped key readable only by the person, lists where each key comes from without showing it, and removes it", async () => {
    const home = await makeHome();
    const login = await runCairn(["auth", "login", "anthropic"], { home, input: "sk-ant-secret-1\n" });
    expect(login.code, login.stderr).toBe(0);
    expect(login.stdout).toContain("Stored the anthropic key in");
    expect(statSync(credentials(home)).mode & 0o777).toBe(0o600);

    const list = await runCairn(["auth", "list"], { home, env: { OPENAI_API_KEY: "sk-from-env" } });
    expect(list.stdout).toMatch(/anthropic\s+ANTHROPIC_API_KEY\s+stored \d{4}-\d\d-\d\d/);
    expect(list.stdout).toMatch(/openai\s+OPENAI_API_KEY\s+environment/);
    expect(list.stdout).not.toMatch(/sk-ant-secret-1|sk-from-env/);
    const json = JSON.parse((await runCairn(["auth", "list", "--json"], { home })).stdout);
    expect(json.find((row: { provider: string }) => row.provider === "anthropic")).toMatchObject({
      variable: "ANTHROPIC_API_KEY",
      source: "stored",
    });

    const typo = await runCairn(["auth", "login", "antropic"], { home, input: "x\n" });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain("did you mean anthropic?");

    expect((await runCairn(["auth", "logout", "anthropic"], { home })).stdout).toContain(
      "Removed the stored anthropic key.",
    );
    expect(await readFile(credentials(home), "utf8")).not.toContain("sk-ant-secret-1");
  });

  it("with no key anywhere, ends on a whole sentence, and needs no key for a local server", async () => {
    const home = await makeHome();
    const noKeys = { OPENAI_API_KEY: "", ANTHROPIC_API_KEY: "", OPENROUTER_API_KEY: "" };
    const list = await runCairn(["auth", "list"], { home, env: noKeys });
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/ollama\s+OLLAMA_API_KEY\s+not needed \(a local server\)/);
    expect(list.stdout).toMatch(/anthropic\s+ANTHROPIC_API_KEY\s+—/);
    const last = list.stdout.trim().split("\n").at(-1) ?? "";
    expect(last).toBe(
      "No model chosen and no API key found: store one with `cairn auth login <provider>`, set a variable above, or choose a model with --model (a local Ollama needs no key: --model ollama/<name>).",
    );
    const json = JSON.parse((await runCairn(["auth", "list", "--json"], { home, env: noKeys })).stdout);
    expect(json.find((row: { provider: string }) => row.provider === "ollama")).toMatchObject({
      needed: false,
      source: null,
    });
    expect(json.find((row: { provider: string }) => row.provider === "openai")).toMatchObject({
      needed: true,
    });
  });

  it("is used where the environment has no key, and the environment's wins where it has one", async () => {
    const [repo, home] = await Promise.all([makeRepo({}), makeHome()]);
    open.server = await startScriptedServer([{ text: "One." }, { text: "Two." }]);
    const { args } = modelFlags("openai", open.server);
    await runCairn(["auth", "login", "openai"], { home, input: "sk-stored\n" });
    const stored = await runCairn(["-p", "say one", ...args, "--cwd", repo], { home });
    expect(stored.code, stored.stderr).toBe(0);
    expect(open.server.requests[0]?.headers.authorization).toBe("Bearer sk-stored");
    await runCairn(["-p", "say two", ...args, "--cwd", repo], { home, env: { OPENAI_API_KEY: "sk-env" } });
    expect(open.server.requests[1]?.headers.authorization).toBe("Bearer sk-env");
  });
});

describe.skipIf(!hasTmux)("cairn auth at a terminal, and the message with no key", () => {
  it("takes the key typed without showing it", async () => {
    const [repo, home] = await Promise.all([makeRepo({}), makeHome()]);
    open.terminal = Terminal.start({ args: ["auth", "login", "google"], cwd: repo, home });
    const t = open.terminal;
    await t.waitFor("it is not shown");
    t.type("AIza-typed-secret");
    t.press("Enter");
    await t.waitFor("Stored the google key");
    expect(t.screen()).not.toContain("AIza-typed-secret");
    expect(await readFile(credentials(home), "utf8")).toContain("AIza-typed-secret");
  });

  it("says at 80 columns which keys would do, broken between words", async () => {
    const [repo, home] = await Promise.all([makeRepo({}), makeHome()]);
    open.terminal = Terminal.start({ args: [], cwd: repo, home });
    const t = open.terminal;
    expect(await t.exited()).toBe(2);
    const screen = t.screen();
    expect(screen).toContain("cairn auth login <provider>");
    expect(screen).toMatch(/openrouter\s+OPENROUTER_API_KEY\s+openrouter\/google\/gemini-3\.5-flash/);
    // Every line ends at the end of a word, none cut inside one.
    const lines = screen.split("\n").filter((line) => line.trim());
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(80);
    expect(lines.some((line) => line.length === 80 && /\w$/.test(line))).toBe(false);
  });

  it("cairn auth list at 80 columns with no key ends on a sentence broken between words", async () => {
    const [repo, home] = await Promise.all([makeRepo({}), makeHome()]);
    open.terminal = Terminal.start({ args: ["auth", "list"], cwd: repo, home });
    const t = open.terminal;
    expect(await t.exited()).toBe(0);
    const screen = t.screen();
    expect(screen.replace(/\s+/g, " ")).toContain(
      "No model chosen and no API key found: store one with `cairn auth login <provider>`, set a variable above",
    );
    const lines = screen.split("\n").filter((line) => line.trim());
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(80);
    expect(lines.some((line) => line.length === 80 && /\w$/.test(line))).toBe(false);
  });
});
