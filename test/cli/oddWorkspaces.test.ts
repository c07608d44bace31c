// Workspaces and files that are not what cairn usually meets (issue 15): each session ends
// normally, what cannot be done is refused with a reason the model can act on, and nothing of the
// user's is lost.
import { execFileSync } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterEach, describe, expect, it } from "vitest";
import { toolResults } from "../faults/harness.js";
import { doSession, EXIT_UNCHECKED, makeHome, makeRepo, runCairn } from "../helpers/cli.js";
import { type ScriptedServer, type ScriptedTurn, startScriptedServer } from "../support/scriptedServer.js";

const servers: ScriptedServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const STACK_FRAME = /^\s+at .+:\d+:\d+\)?$/m;

/** One `cairn do` session against a script: its exit, its tool results, and no stack trace. */
async function session(repo: string, script: ScriptedTurn[], home?: string) {
  const server = await startScriptedServer(script);
  servers.push(server);
  const { run, events, result } = await doSession(server, {
    repo,
    task: "work on the files",
    ...(home ? { home } : {}),
  });
  expect(run.stderr).not.toMatch(STACK_FRAME);
  const results = toolResults(events);
  // Calls of one turn may finish in any order.
  const of = (tool: string) => results.find((r) => r.tool === tool);
  return { run, results, of, result };
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

describe("files", () => {
  it("refuses to edit a file that is not UTF-8, with the reason, and keeps it byte for byte", async () => {
    const latin1 = Buffer.from("caf\xe9 cr\xe8me\n", "latin1");
    // Valid for the first 8 KB that decide whether a file is text, then a byte that never decodes.
    const brokenLate = Buffer.concat([Buffer.from(`${"a = 1\n".repeat(2000)}`), Buffer.from([0xff, 0x0a])]);
    const repo = await makeRepo({});
    await writeFile(path.join(repo, "latin1.txt"), latin1);
    await writeFile(path.join(repo, "late.txt"), brokenLate);
    const { run, results } = await session(repo, [
      {
        toolCalls: [
          { name: "edit_file", args: { path: "latin1.txt", old_string: "caf", new_string: "CAF" } },
          {
            name: "edit_file",
            args: { path: "late.txt", old_string: "a = 1\na = 1\n", new_string: "a = 2\n" },
          },
        ],
      },
      { text: "Neither file can be edited safely." },
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(results.map((r) => r.ok)).toEqual([false, false]);
    const said = results.map((r) => r.output).sort();
    expect(said[0]).toMatch(/late\.txt is not valid UTF-8 throughout/);
    expect(said[1]).toMatch(/latin1\.txt is not a text file.*other than UTF-8/);
    expect((await readFile(path.join(repo, "latin1.txt"))).equals(latin1)).toBe(true);
    expect((await readFile(path.join(repo, "late.txt"))).equals(brokenLate)).toBe(true);
  });

  it("edits a file with mixed line endings, keeping every line outside the edit as it was", async () => {
    const repo = await makeRepo({ "mixed.txt": "one\r\ntwo\nthree\r\nfour\n" });
    const { run, results } = await session(repo, [
      {
        toolCalls: [{ name: "edit_file", args: { path: "mixed.txt", old_string: "two", new_string: "TWO" } }],
      },
      {
        toolCalls: [{ name: "edit_file", args: { path: "mixed.txt", old_string: "four", new_string: "4" } }],
      },
      { text: "Done." },
    ]);
    expect(run.code, run.stderr).toBe(EXIT_UNCHECKED);
    expect(results.map((r) => r.ok)).toEqual([true, true]);
    expect(await readFile(path.join(repo, "mixed.txt"), "utf8")).toBe("one\r\nTWO\nthree\r\n4\n");
  });

  it("reads, searches, edits and undoes in a workspace whose path has spaces and non-ASCII letters", async () => {
    const parent = await makeRepo({});
    const repo = path.join(parent, "my project – café 日本");
    await mkdir(path.join(repo, "src"), { recursive: true });
    await writeFile(path.join(repo, "src", "naïve file.ts"), "export const greeting = 'héllo';\n");
    const home = await makeHome();
    const { run, results, of } = await session(
      repo,
      [
        {
          toolCalls: [
            { name: "grep", args: { pattern: "héllo" } },
            { name: "read_file", args: { path: "src/naïve file.ts" } },
          ],
        },
        {
          toolCalls: [
            {
              name: "edit_file",
              args: { path: "src/naïve file.ts", old_string: "'héllo'", new_string: "'grüß dich'" },
            },
          ],
        },
        { text: "Done." },
      ],
      home,
    );
    expect(run.code, run.stderr).toBe(EXIT_UNCHECKED);
    expect(results.map((r) => r.ok)).toEqual([true, true, true]);
    expect(of("grep")?.output).toBe("src/naïve file.ts:1:export const greeting = 'héllo';");
    const file = path.join(repo, "src", "naïve file.ts");
    expect(await readFile(file, "utf8")).toBe("export const greeting = 'grüß dich';\n");
    const undo = await runCairn(["undo", "--cwd", repo], { home });
    expect(undo.code, undo.stderr).toBe(0);
    expect(await readFile(file, "utf8")).toBe("export const greeting = 'héllo';\n");
  });
});

describe("git states", () => {
  const script: ScriptedTurn[] = [
    {
      toolCalls: [
        { name: "git_status", args: {} },
        { name: "grep", args: { pattern: "value" } },
        { name: "edit_file", args: { path: "app.txt", old_string: "value = 1", new_string: "value = 2" } },
      ],
    },
    { text: "Done." },
  ];

  it("works in a folder that is not a git repository; git tools say so", async () => {
    const repo = await makeRepo({ "app.txt": "value = 1\n" });
    const { run, of } = await session(repo, script);
    expect(run.code, run.stderr).toBe(EXIT_UNCHECKED);
    expect(of("git_status")).toMatchObject({
      ok: false,
      output: expect.stringMatching(/is not a git repository/),
    });
    expect([of("grep")?.ok, of("edit_file")?.ok]).toEqual([true, true]);
    expect(await readFile(path.join(repo, "app.txt"), "utf8")).toBe("value = 2\n");
  });

  it("works in a bare repository's folder; git tools pass on what git said", async () => {
    const repo = await makeRepo({});
    git(repo, "init", "-q", "--bare");
    await writeFile(path.join(repo, "app.txt"), "value = 1\n");
    const { run, of } = await session(repo, script);
    expect(run.code, run.stderr).toBe(EXIT_UNCHECKED);
    expect(of("git_status")).toMatchObject({
      ok: false,
      output: "git status failed: fatal: this operation must be run in a work tree",
    });
    expect([of("grep")?.ok, of("edit_file")?.ok]).toEqual([true, true]);
    expect(await readFile(path.join(repo, "app.txt"), "utf8")).toBe("value = 2\n");
  });

  it("works in a repository whose .git is corrupt; git tools say it looks damaged", async () => {
    const repo = await makeRepo({ "app.txt": "value = 1\n" });
    git(repo, "init", "-q");
    await writeFile(path.join(repo, ".git", "HEAD"), "garbage\n");
    await writeFile(path.join(repo, ".git", "index"), "not an index");
    const home = await makeHome();
    const { run, of } = await session(repo, script, home);
    expect(run.code, run.stderr).toBe(EXIT_UNCHECKED);
    expect(of("git_status")).toMatchObject({
      ok: false,
      output: expect.stringMatching(/has a \.git, but git cannot read it as a repository .*looks damaged/),
    });
    expect([of("grep")?.ok, of("edit_file")?.ok]).toEqual([true, true]);
    expect(await readFile(path.join(repo, "app.txt"), "utf8")).toBe("value = 2\n");
    // The checkpoints live in a repository of their own, untouched by the workspace's broken one.
    const undo = await runCairn(["undo", "--cwd", repo], { home });
    expect(undo.code, undo.stderr).toBe(0);
    expect(await readFile(path.join(repo, "app.txt"), "utf8")).toBe("value = 1\n");
  });
});

describe("the session store", () => {
  it("takes two cairn processes writing sessions at once: both finish, the database stays whole", async () => {
    const home = await makeHome();
    const repos = await Promise.all([0, 1].map((n) => makeRepo({ [`file${n}.txt`]: `line ${n}\n` })));
    const script = (n: number): ScriptedTurn[] => [
      ...Array.from({ length: 6 }, () => ({
        toolCalls: [{ name: "read_file", args: { path: `file${n}.txt` } }],
      })),
      {
        toolCalls: [
          { name: "edit_file", args: { path: `file${n}.txt`, old_string: "line", new_string: "LINE" } },
        ],
      },
      { text: `Session ${n} done.` },
    ];
    const runs = await Promise.all(repos.map((repo, n) => session(repo, script(n), home)));
    // Each ran to its end: its edit made, and with no --verify, unchecked.
    for (const { run, result } of runs) {
      expect(run.code, run.stderr).toBe(EXIT_UNCHECKED);
      expect(result).toMatchObject({ status: "unverified" });
    }
    const db = new DatabaseSync(path.join(home, "data", "cairn", "cairn.db"), { readOnly: true });
    try {
      expect(db.prepare("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
      const ids = runs.map(({ result }) => (result as { session_id: string }).session_id);
      const stored = db.prepare("SELECT id, status FROM sessions ORDER BY id").all();
      expect(stored).toEqual(ids.sort().map((id) => ({ id, status: "unverified" })));
    } finally {
      db.close();
    }
  });
});
