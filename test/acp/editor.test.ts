import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { ClientApp } from "@agentclientprotocol/sdk";
import { describe, expect, it } from "vitest";
import { openSession, stagePerTest, text } from "../helpers/acp.js";
import { makeGitRepo, makeHome, runCairn } from "../helpers/cli.js";
import { FIX_SUM, JS_REPO } from "../helpers/runScript.js";
import type { ScriptedServer } from "../support/scriptedServer.js";

const stage = stagePerTest();

/** An editor that lends cairn (in auto-edit mode) its buffers: `read` and `write` answer the fs methods. */
async function lendBuffers(
  server: ScriptedServer,
  home: string,
  repo: string,
  buffers: { read: (path: string) => string; write: (path: string, content: string) => object },
) {
  const editor = stage.start({
    server,
    home,
    args: ["--approval", "auto-edit"],
    extend: (app) =>
      app
        .onRequest("fs/read_text_file", ({ params }) => ({ content: buffers.read(params.path) }))
        .onRequest("fs/write_text_file", ({ params }) => buffers.write(params.path, params.content)),
  });
  const { session } = await openSession(editor, repo, { fs: { readTextFile: true, writeTextFile: true } });
  return { editor, session };
}

describe("cairn acp: what the editor lends", () => {
  it("reads the editor's unsaved buffer and writes into it; the disk and the checkpoints follow", async () => {
    const server = await stage.serve([
      { toolCalls: [{ name: "read_file", args: { path: "src/sum.js" } }] },
      { toolCalls: [FIX_SUM] },
      { text: "Fixed in your buffer." },
    ]);
    const [repo, home] = await Promise.all([makeGitRepo(JS_REPO), makeHome()]);
    const file = path.join(repo, "src/sum.js");
    const unsaved =
      "export function sum(values) {\n  // typed in the editor, not saved\n  return values.reduce((a, b) => a - b, 0);\n}\n";
    // The editor's buffers: what it reads from, and where cairn's writes land (it saves nothing).
    const buffers = new Map([[file, unsaved]]);
    const reads: string[] = [];
    const writes: Array<{ path: string; content: string }> = [];
    const { editor, session } = await lendBuffers(server, home, repo, {
      read: (path) => {
        reads.push(path);
        return buffers.get(path) ?? readFileSync(path, "utf8");
      },
      write: (path, content) => {
        writes.push({ path, content });
        buffers.set(path, content);
        return {};
      },
    });

    const response = await editor.agent.request("session/prompt", {
      sessionId: session.sessionId,
      prompt: text("fix the sum"),
    });
    expect(response.stopReason).toBe("end_turn");
    expect(reads).toContain(file);
    expect(JSON.stringify(server.requests[1]?.body.messages)).toContain("typed in the editor, not saved");
    expect(writes).toEqual([{ path: file, content: unsaved.replace("(a, b) => a - b", "(a, b) => a + b") }]);
    expect(await readFile(file, "utf8")).toBe(writes[0]?.content);

    const checkpoints = await runCairn(["checkpoints", "--cwd", repo, "--json"], { home });
    expect(JSON.parse(checkpoints.stdout)).toEqual([
      expect.objectContaining({ session: session.sessionId, files: [{ path: "src/sum.js", existed: true }] }),
    ]);
  });

  it("leaves the disk to an editor that kept the person's unsaved text out of it, and tells the model", async () => {
    const server = await stage.serve([{ toolCalls: [FIX_SUM] }, { text: "Fixed." }]);
    const [repo, home] = await Promise.all([makeGitRepo(JS_REPO), makeHome()]);
    const file = path.join(repo, "src/sum.js");
    const saved = readFileSync(file, "utf8");
    const unsaved = saved.replace("{\n", "{\n  // typed in the editor, not saved\n");
    // As cairn.el answers for a buffer with the person's unsaved changes: it wrote the disk itself.
    const { editor, session } = await lendBuffers(server, home, repo, {
      read: (path) => (path === file ? unsaved : readFileSync(path, "utf8")),
      write: () => ({ _meta: { cairn: { unsaved: "person" } } }),
    });
    const response = await editor.agent.request("session/prompt", {
      sessionId: session.sessionId,
      prompt: text("fix the sum"),
    });
    expect(response.stopReason).toBe("end_turn");
    // cairn did not write the buffer's text (the person's unsaved line with it) to the disk.
    expect(await readFile(file, "utf8")).toBe(saved);
    expect(JSON.stringify(server.requests[1]?.body.messages)).toContain(
      "Commands see the file without their unsaved changes.",
    );
  });

  it("runs commands in the editor's terminal when it offers one, without the editor's secrets, and shows it in the call", async () => {
    const command = "echo hello from the terminal; printenv EDITOR_SESSION_TOKEN || echo no token";
    const server = await stage.serve([
      { toolCalls: [{ name: "run_command", args: { command } }] },
      { text: "It said hello." },
    ]);
    const [repo, home] = await Promise.all([makeGitRepo({ "a.txt": "a\n" }), makeHome()]);
    const created: Array<{ command: string; args: string[]; cwd: string }> = [];
    const terminals = new Map<string, { output: string; exit: Promise<number | null> }>();
    const editor = stage.start({
      server,
      home,
      args: ["--approval", "auto"],
      extend: (app) =>
        app
          .onRequest("terminal/create", ({ params }) => {
            const args = params.args ?? [];
            created.push({ command: params.command, args, cwd: params.cwd ?? "" });
            // An editor's terminal has the editor's environment, which may hold a secret of its own.
            const env = { ...process.env, EDITOR_SESSION_TOKEN: "editor-token-value" };
            const child = spawn(params.command, args, { cwd: params.cwd ?? repo, env });
            const terminal = {
              output: "",
              exit: new Promise<number | null>((resolve) => child.on("close", resolve)),
            };
            child.stdout.on("data", (chunk) => {
              terminal.output += chunk;
            });
            const terminalId = `term-${terminals.size + 1}`;
            terminals.set(terminalId, terminal);
            return { terminalId };
          })
          .onRequest("terminal/wait_for_exit", async ({ params }) => ({
            exitCode: await terminals.get(params.terminalId)?.exit,
          }))
          .onRequest("terminal/output", ({ params }) => ({
            output: terminals.get(params.terminalId)?.output ?? "",
            truncated: false,
          }))
          .onRequest("terminal/kill", () => ({}))
          .onRequest("terminal/release", () => ({})),
    });
    const { session } = await openSession(editor, repo, { terminal: true });
    const response = await editor.agent.request("session/prompt", {
      sessionId: session.sessionId,
      prompt: text("say hello"),
    });
    expect(response.stopReason).toBe("end_turn");
    expect(created).toHaveLength(1);
    expect(created[0]?.args.join(" ")).toContain("echo hello from the terminal");
    expect(created[0]?.cwd).toBe(repo);
    const [call] = editor.updatesOf(session.sessionId, "tool_call");
    const shown = editor
      .updatesOf(session.sessionId, "tool_call_update")
      .filter((update) => update.toolCallId === call?.toolCallId);
    expect(shown.map((update) => update.status)).toEqual(["in_progress", "completed"]);
    for (const update of shown) expect(update.content).toEqual([{ type: "terminal", terminalId: "term-1" }]);
    const answer = JSON.stringify(server.requests[1]?.body.messages.at(-1));
    expect(answer).toContain("hello from the terminal\\nno token");
    expect(answer).not.toContain("editor-token-value");
  });
});

describe("cairn acp: what cairn.el offers besides (emacs_eval, open_in_editor)", () => {
  const offers = { _meta: { cairn: { emacsEval: true, openFile: true } } };
  const toolNames = (server: ScriptedServer, index: number): string[] =>
    (server.requests[index]?.body.tools ?? []).map(
      (tool: { function: { name: string } }) => tool.function.name,
    );

  it("evaluates Lisp in the editor after asking, even in auto mode, and returns the value or the error to the model", async () => {
    const server = await stage.serve([
      { toolCalls: [{ name: "emacs_eval", args: { code: '(message "hi")\n(+ 1 2)' } }] },
      { toolCalls: [{ name: "emacs_eval", args: { code: "(car 1)" } }] },
      { toolCalls: [{ name: "open_in_editor", args: { path: "a.txt", line: 1 } }] },
      { text: "Done." },
    ]);
    const [repo, home] = await Promise.all([makeGitRepo({ "a.txt": "a\n" }), makeHome()]);
    const opened: unknown[] = [];
    const { editor, evaluated } = lispEditor({
      server,
      home,
      approval: "auto",
      evaluate: (code) =>
        code === "(car 1)" ? { error: "Wrong type argument: listp, 1" } : { value: "3", messages: "hi" },
      extend: (app) =>
        app.onRequest(
          "_cairn/open_file",
          (params: unknown) => params,
          ({ params }) => {
            opened.push(params);
            return {};
          },
        ),
    });
    const { session } = await openSession(editor, repo, offers);
    const response = await editor.agent.request("session/prompt", {
      sessionId: session.sessionId,
      prompt: text("look around my editor"),
    });
    expect(response.stopReason).toBe("end_turn");
    expect(evaluated).toEqual(['(message "hi")\n(+ 1 2)', "(car 1)"]);
    expect(editor.permissions.map((asked) => asked.toolCall.title)).toEqual([
      'emacs_eval (message "hi")',
      "emacs_eval (car 1)",
    ]);
    expect(JSON.stringify(editor.permissions[0]?.toolCall.content)).toContain(
      JSON.stringify('```emacs-lisp\n(message "hi")\n(+ 1 2)\n```').slice(1, -1),
    );
    expect(JSON.stringify(server.requests[1]?.body.messages.at(-1))).toContain("3\\nMessages:\\nhi");
    expect(JSON.stringify(server.requests[2]?.body.messages.at(-1))).toContain(
      "Emacs signalled an error: Wrong type argument: listp, 1",
    );
    expect(opened).toEqual([{ sessionId: session.sessionId, path: path.join(repo, "a.txt"), line: 1 }]);
    expect(toolNames(server, 0)).toEqual(expect.arrayContaining(["emacs_eval", "open_in_editor"]));
  });

  it("offers neither tool to an editor that does not offer them, and refuses Lisp in read-only mode", async () => {
    const server = await stage.serve([
      { text: "Hello." },
      { toolCalls: [{ name: "emacs_eval", args: { code: "(kill-emacs)" } }] },
      { text: "I may not." },
    ]);
    const [repo, home] = await Promise.all([makeGitRepo({ "a.txt": "a\n" }), makeHome()]);
    const plain = stage.start({ server, home });
    const first = await openSession(plain, repo, { fs: { readTextFile: true } });
    await plain.agent.request("session/prompt", {
      sessionId: first.session.sessionId,
      prompt: text("look at a.txt"),
    });
    expect(toolNames(server, 0)).toContain("read_file");
    expect(toolNames(server, 0)).not.toContain("emacs_eval");
    expect(toolNames(server, 0)).not.toContain("open_in_editor");
    await plain.close();

    const { editor, evaluated } = lispEditor({
      server,
      home,
      approval: "read-only",
      evaluate: () => ({ value: "nil" }),
    });
    const { session } = await openSession(editor, repo, offers);
    await editor.agent.request("session/prompt", { sessionId: session.sessionId, prompt: text("quit") });
    expect(evaluated).toEqual([]);
    expect(editor.permissions).toEqual([]);
    expect(JSON.stringify(server.requests[2]?.body.messages.at(-1))).toContain("read-only mode");
  });
});

/**
 * An editor that evaluates Lisp as `evaluate` says (`_cairn/emacs_eval`), approving every call
 * once; the code it was given, in order.
 */
function lispEditor(options: {
  server: ScriptedServer;
  home: string;
  approval: string;
  evaluate: (code: string) => object;
  extend?: (app: ClientApp) => ClientApp;
}) {
  const evaluated: string[] = [];
  const editor = stage.start({
    server: options.server,
    home: options.home,
    args: ["--approval", options.approval],
    answer: () => "once",
    extend: (app) => {
      const lisp = app.onRequest(
        "_cairn/emacs_eval",
        (params: unknown) => params as { code: string },
        ({ params }) => {
          evaluated.push(params.code);
          return options.evaluate(params.code);
        },
      );
      return options.extend ? options.extend(lisp) : lisp;
    },
  });
  return { editor, evaluated };
}
