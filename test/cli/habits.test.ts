import { describe, expect, it } from "vitest";
import { Store } from "../../src/store/sessions.js";
import { closedAfterEach, hasTmux, Terminal } from "../e2e/tmux.js";
import { makeHome, makeRepo, modelFlags, runCairn, streamEvents } from "../helpers/cli.js";
import { startScriptedServer } from "../support/scriptedServer.js";

const open = closedAfterEach();

/** The user's messages of one request, as the model read them. */
function userText(index: number): string {
  const messages = open.server?.requests[index]?.body.messages ?? [];
  return JSON.stringify(messages.filter((m: { role: string }) => m.role === "user"));
}

async function setUp(script: Parameters<typeof startScriptedServer>[0]) {
  open.server = await startScriptedServer(script);
  const [repo, home] = await Promise.all([makeRepo({ "notes.md": "# Notes\n" }), makeHome()]);
  return { repo, home, ...modelFlags("openai", open.server) };
}

describe("what users of other agents type in the first minute", () => {
  it("cairn -p runs the message headless and prints the answer, in the format asked", async () => {
    const { repo, home, args, env } = await setUp([{ text: "Forty-two." }, { text: "Again forty-two." }]);
    const text = await runCairn(["-p", "what is the answer?", ...args, "--cwd", repo], { home, env });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain("Forty-two.");
    const json = await runCairn(["--print", "and now?", ...args, "--cwd", repo, "--output-format", "json"], {
      home,
      env,
    });
    expect(JSON.parse(json.stdout)).toMatchObject({ status: "completed", summary: "Again forty-two." });
  });

  it("cairn -p asks the model even for a greeting, and a message piped to a bare cairn is sent", async () => {
    const { repo, home, args, env } = await setUp([
      { text: "Hi from the model." },
      { text: "Piped, heard." },
    ]);
    const greeting = await runCairn(["-p", "hi", ...args, "--cwd", repo], { home, env });
    expect(greeting.stdout).toContain("Hi from the model.");
    expect(open.server?.requests).toHaveLength(1);
    // `echo x | cairn > out.txt`: no terminal either side, the piped text is the message.
    const piped = await runCairn([...args, "--cwd", repo], { home, env, input: "what is in notes.md?\n" });
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stdout).toContain("Piped, heard.");
    expect(piped.stdout).not.toContain("Usage: cairn");
    expect(userText(1)).toContain("what is in notes.md?");
  });

  it("takes flags written before the command as the command's, and refuses one the command has not", async () => {
    const { repo, home, env } = await setUp([{ text: "Hi there." }]);
    const baseUrl = open.server?.openaiBaseUrl ?? "";
    const run = await runCairn(
      [
        "--model",
        "openai-compatible/local-q4",
        "--base-url",
        baseUrl,
        "--cwd",
        repo,
        "--output-format",
        "json",
        "do",
        "say hi",
      ],
      { home, env },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: "completed", summary: "Hi there." });
    expect(open.server?.requests[0]?.body.model).toBe("local-q4");
    const sessions = await runCairn(["--model", "openai/gpt-4o", "sessions"], { home, env });
    expect(sessions.code).toBe(2);
    expect(sessions.stderr.split("\n")[0]).toBe("error: --model does not apply to cairn sessions");
  });

  it("appends what is piped to the task, and reads the whole task from stdin with -", async () => {
    const { repo, home, args, env } = await setUp([{ text: "Looks fine." }, { text: "Done." }]);
    const diff = "diff --git a/x b/x\n+added line\n";
    await runCairn(["do", "review this change", ...args, "--cwd", repo], { home, env, input: diff });
    expect(userText(0)).toMatch(/review this change[\s\S]*<stdin>[\s\S]*\+added line/);
    await runCairn(["do", "-", ...args, "--cwd", repo], { home, env, input: "summarise notes.md\n" });
    expect(userText(1)).toContain("summarise notes.md");
    expect(userText(1)).not.toContain("<stdin>");
  });

  it("cuts a huge piped input and says so", async () => {
    const { repo, home, args, env } = await setUp([{ text: "Seen." }]);
    const log = "x".repeat(250_000);
    await runCairn(["do", "what failed?", ...args, "--cwd", repo], { home, env, input: log });
    const sent = userText(0);
    expect(sent).toContain("Standard input was cut: the first 100,000 of 250,000 bytes");
    expect(sent.length).toBeLessThan(120_000);
  });

  it("refuses `cairn do -` with nothing piped, as bad usage", async () => {
    const { repo, home, args, env } = await setUp([]);
    const run = await runCairn(["do", "-", ...args, "--cwd", repo], { home, env, input: "" });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("standard input was empty");
  });

  it("piped into the chat, a multi-line input is one message", async () => {
    const { repo, home, args, env } = await setUp([{ text: "That trace says the file is missing." }]);
    const trace = "Error: ENOENT\n    at open (fs.js:1)\n    at main (app.js:9)\n    at run (app.js:3)\n";
    const run = await runCairn(["chat", ...args, "--cwd", repo], { home, env, input: trace });
    expect(run.code).toBe(0);
    expect(open.server?.requests).toHaveLength(1);
    expect(userText(0)).toContain("at run (app.js:3)");
  });

  it("cairn chat --output-format json prints the message's result as JSON, stream-json its events", async () => {
    const { repo, home, args, env } = await setUp([
      { text: "It is a notes file." },
      { text: "Still notes." },
    ]);
    const json = await runCairn(["chat", ...args, "--cwd", repo, "--output-format", "json"], {
      home,
      env,
      input: "what is notes.md?",
    });
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ status: "completed", summary: "It is a notes file." });
    const stream = await runCairn(["chat", ...args, "--cwd", repo, "--output-format", "stream-json"], {
      home,
      env,
      input: "and now?",
    });
    expect(stream.code, stream.stderr).toBe(0);
    const lines = streamEvents(stream.stdout);
    expect(lines[0]?.type).toBe("session.started");
    expect(lines.at(-1)).toMatchObject({ type: "result", status: "completed", summary: "Still notes." });
  });

  it("cairn chat --output-format json with no message is bad usage that says how to give one", async () => {
    const { repo, home, args, env } = await setUp([]);
    const run = await runCairn(["chat", ...args, "--cwd", repo, "--output-format", "json"], {
      home,
      env,
      input: "",
    });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain("takes its message piped in");
    expect(open.server?.requests).toHaveLength(0);
  });

  it("cairn resume --last finds only this folder's sessions, and says when there is none", async () => {
    const { repo, home, args, env } = await setUp([{ text: "Hi there." }]);
    await runCairn(["-p", "say hi please", ...args, "--cwd", repo], { home, env });
    const elsewhere = await makeRepo({});
    const run = await runCairn(["resume", "--last", ...args, "--cwd", elsewhere], { home, env });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`there is no session in ${elsewhere} to resume`);
  });
});

describe.skipIf(!hasTmux)("the bare command in a terminal", () => {
  it("takes the chat's flags and opens on a first message", async () => {
    const { repo, home } = await setUp([{ text: "Hello from the model." }]);
    open.terminal = Terminal.start({
      args: [
        "--model",
        "openai-compatible/local",
        "--base-url",
        open.server?.openaiBaseUrl ?? "",
        "say hello to me",
      ],
      cwd: repo,
      home,
    });
    const screen = await open.terminal.waitFor("Hello from the model.");
    expect(screen).toContain("say hello to me");
    expect(screen).toContain("openai-compatible/local");
  });

  it("-c continues this folder's last session in the UI, and -r continues the one named", async () => {
    const { repo, home, args, env } = await setUp([
      { text: "First answer." },
      { text: "Continued answer." },
      { text: "Named answer." },
    ]);
    await runCairn(["-p", "first question", ...args, "--cwd", repo], { home, env });
    open.terminal = Terminal.start({ args: ["-c", ...args], cwd: repo, home, env });
    await open.terminal.waitFor("First answer.");
    open.terminal.type("and then?");
    open.terminal.press("Enter");
    await open.terminal.waitFor("Continued answer.");
    expect(JSON.stringify(open.server?.requests[1]?.body.messages)).toMatch(
      /first question[\s\S]*First answer[\s\S]*and then\?/,
    );
    open.terminal.press("C-c", "C-c");
    await open.terminal.exited();
    open.terminal.close();

    const store = Store.open(`${home}/data/cairn/cairn.db`);
    const [session] = store.listSessions({ workspace: repo });
    store.close();
    open.terminal = Terminal.start({ args: ["-r", session?.id ?? "", ...args], cwd: repo, home, env });
    await open.terminal.waitFor("and then?");
    open.terminal.type("one more");
    open.terminal.press("Enter");
    await open.terminal.waitFor("Named answer.");
  });
});
