// Bad flags, tasks and config files (issue 15): each is refused before anything runs, in one
// clear line, with exit 2 (bad usage or configuration), never a stack trace.
import { existsSync } from "node:fs";
import { mkdir, rm, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type CliRun, makeHome, makeRepo, modelFlags, runCairn } from "../helpers/cli.js";
import { missingPath } from "../helpers/temp.js";
import { type ScriptedServer, startScriptedServer } from "../support/scriptedServer.js";

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function expectRefused(run: CliRun, message: RegExp | string): void {
  expect(run.code, run.stderr).toBe(2);
  expect(run.stderr.split("\n")[0]).toMatch(message);
  expect(run.stderr).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
  expect(run.stderr).not.toMatch(/unexpected error/);
}

/** The scripted server with nothing to say: any request to it is a request that should not be. */
async function silentModel(): Promise<{ args: string[]; env: Record<string, string> }> {
  server = await startScriptedServer([]);
  return modelFlags("openai", server);
}

describe("--cwd", () => {
  const commands = [
    ["do", "fix it"],
    ["run", "fix it"],
    ["chat"],
    ["resume", "--last"],
    ["checkpoints"],
    ["undo"],
  ];

  it.each(commands)("%s: a folder that does not exist is bad usage", async (...command) => {
    const { args, env } = await silentModel();
    const missing = missingPath("dir");
    const run = await runCairn(
      [...command, "--cwd", missing, ...(command[0] === "checkpoints" || command[0] === "undo" ? [] : args)],
      { home: await makeHome(), env },
    );
    expectRefused(
      run,
      `error: option '--cwd <dir>' argument '${missing}' is invalid. the folder does not exist.`,
    );
    expect(server?.requests).toHaveLength(0);
  });

  it.each([
    ["agents"],
    ["mcp", "list"],
    ["mcp", "remove", "x"],
    ["mcp", "add", "x", "--", "echo"],
    ["mcp", "serve"],
    ["serve"],
  ])(
    "cairn %s …: a folder that does not exist is bad usage, and nothing is made there",
    async (...command) => {
      const at = command.indexOf("--");
      const missing = missingPath("dir");
      const args =
        at < 0
          ? [...command, "--cwd", missing]
          : [...command.slice(0, at), "--cwd", missing, ...command.slice(at)];
      const run = await runCairn(args, { home: await makeHome(), input: "" });
      expectRefused(
        run,
        `error: option '--cwd <dir>' argument '${missing}' is invalid. the folder does not exist.`,
      );
      expect(existsSync(missing)).toBe(false);
    },
  );

  it("a file given as the folder is bad usage", async () => {
    const repo = await makeRepo({ "file.txt": "x\n" });
    const run = await runCairn(["do", "fix it", "--cwd", path.join(repo, "file.txt")], {
      home: await makeHome(),
    });
    expectRefused(run, /argument '.*file\.txt' is invalid\. it is a file, not a folder\./);
  });
});

describe("--out", () => {
  it.each([
    ["batch", "tasks.jsonl"],
    ["eval", "builtin"],
    ["batch", "status", "b-1", "--queue", "redis://127.0.0.1:1"],
  ])(
    "cairn %s …: a results folder that cannot be made is bad usage, said before anything runs",
    async (...command) => {
      const repo = await makeRepo({ afile: "x\n" });
      const file = path.join(repo, "afile");
      for (const [out, message] of [
        [file, "it is a file, not a folder."],
        [path.join(file, "results"), `the folder cannot be made: ${file} is a file.`],
      ]) {
        const run = await runCairn([...command, "--out", out as string], { home: await makeHome() });
        expectRefused(run, `error: option '--out <dir>' argument '${out}' is invalid. ${message}`);
      }
    },
  );
});

describe("mcp serve --config", () => {
  it("a config that does not exist is said at start, not by every task", async () => {
    const missing = missingPath("c.yaml");
    const run = await runCairn(["mcp", "serve", "--config", missing], {
      home: await makeHome(),
      input: "",
    });
    expectRefused(run, `cairn: --config ${missing}: no such file`);
  });
});

describe("the task", () => {
  it.each([
    ["do", "   "],
    ["do", ""],
    ["run", " \t "],
    ["do", " ", "  "],
    ["-p", "  "],
  ])(
    "%s with a blank task and nothing piped in is bad usage and never reaches the model",
    async (...command) => {
      const { args, env } = await silentModel();
      const run = await runCairn([...command, ...args, "--cwd", await makeRepo({})], {
        home: await makeHome(),
        env,
      });
      expectRefused(run, /^cairn: the task is empty: say what to do/);
      expect(server?.requests).toHaveLength(0);
    },
  );
});

describe("config files", () => {
  it("--config that does not exist, is a folder, or cannot be read is a configuration error", async () => {
    const { args, env } = await silentModel();
    const repo = await makeRepo({});
    const home = await makeHome();
    await mkdir(path.join(repo, "folder.yaml"));
    await symlink("loop.yaml", path.join(repo, "loop.yaml"));
    const cases: Array<[string, RegExp]> = [
      ["missing.yaml", /^cairn: --config .*missing\.yaml: no such file$/],
      [
        "folder.yaml",
        /^cairn: --config .*folder\.yaml: is a folder, not a config file; give --config a YAML file$/,
      ],
      ["loop.yaml", /^cairn: --config .*loop\.yaml: cannot be read \(ELOOP\)$/],
    ];
    for (const [file, message] of cases) {
      const run = await runCairn(["do", "fix it", ...args, "--cwd", repo, "--config", file], { home, env });
      expectRefused(run, message);
    }
    expect(server?.requests).toHaveLength(0);
  });

  it("--config, the project's config.yaml or the global one without read permission is a configuration error", async () => {
    const { chmod } = await import("node:fs/promises");
    const repo = await makeRepo({
      "locked.yaml": "model: openai/gpt-4o\n",
      ".cairn/config.yaml": "max_tool_calls: 5\n",
    });
    const home = await makeHome();
    const locked = /: cannot be read \(permission denied\); make it readable or remove it$/;
    await chmod(path.join(repo, "locked.yaml"), 0o000);
    const flag = await runCairn(["do", "fix it", "--cwd", repo, "--config", "locked.yaml"], {
      home,
      unprivileged: true,
    });
    expectRefused(flag, /^cairn: --config .*locked\.yaml: cannot be read/);
    expect(flag.stderr.split("\n")[0]).toMatch(locked);

    await chmod(path.join(repo, ".cairn", "config.yaml"), 0o000);
    const project = await runCairn(["do", "fix it", "--cwd", repo], { home, unprivileged: true });
    expectRefused(project, /\.cairn\/config\.yaml: cannot be read/);
    expect(project.stderr.split("\n")[0]).toMatch(locked);

    await chmod(path.join(repo, ".cairn", "config.yaml"), 0o644);
    const global = path.join(home, "config", "cairn", "config.yaml");
    await mkdir(path.dirname(global), { recursive: true });
    await writeFile(global, "max_tool_calls: 5\n");
    await chmod(global, 0o000);
    const globalRun = await runCairn(["do", "fix it", "--cwd", repo], { home, unprivileged: true });
    expectRefused(globalRun, /^cairn: ~\/config\/cairn\/config\.yaml: cannot be read/);
    expect(globalRun.stderr.split("\n")[0]).toMatch(locked);
  });

  it("a project or global config.yaml that is a folder is a configuration error; a .cairn file is no config", async () => {
    const { args, env } = await silentModel();
    const repo = await makeRepo({});
    await mkdir(path.join(repo, ".cairn", "config.yaml"), { recursive: true });
    const project = await runCairn(["do", "fix it", ...args, "--cwd", repo], { home: await makeHome(), env });
    expectRefused(
      project,
      /^cairn: .*\.cairn\/config\.yaml: is a folder, not a config file; remove the folder, or make it a YAML file$/,
    );

    const home = await makeHome();
    const global = path.join(home, "config", "cairn", "config.yaml");
    await rm(global, { force: true });
    await mkdir(global, { recursive: true });
    const other = await makeRepo({});
    const run = await runCairn(["do", "fix it", ...args, "--cwd", other], { home, env });
    expectRefused(run, /^cairn: ~\/config\/cairn\/config\.yaml: is a folder, not a config file/);
    expect(server?.requests).toHaveLength(0);

    // `.cairn` as a plain file holds no config: the session runs.
    await rm(global, { recursive: true });
    const plain = await makeRepo({ ".cairn": "not a folder\n" });
    await server?.close();
    server = await startScriptedServer([{ text: "Done." }]);
    const flags = modelFlags("openai", server);
    const ran = await runCairn(["do", "say hi", ...flags.args, "--cwd", plain], { home, env: flags.env });
    expect(ran.code, ran.stderr).toBe(0);
  });
});

describe("resume", () => {
  it("refuses, exit 2, a session whose workspace has since been deleted", async () => {
    server = await startScriptedServer([{ error: { status: 400 } }]);
    const { args, env } = modelFlags("openai", server);
    const home = await makeHome();
    const repo = await makeRepo({ "a.txt": "a\n" });
    const failed = await runCairn(["do", "fix it", ...args, "--cwd", repo, "--output-format", "json"], {
      home,
      env,
    });
    expect(failed.code).not.toBe(0);
    const { session_id: id } = JSON.parse(failed.stdout) as { session_id: string };
    await rm(repo, { recursive: true });
    const run = await runCairn(["resume", id, ...args], { home, env });
    expectRefused(
      run,
      `cairn: session ${id} ran in ${repo}, which no longer exists; it can be resumed only there.`,
    );
  });

  it("resumes a batch's task only in the copy it worked in, never in the repository it is recorded under", async () => {
    server = await startScriptedServer([{ error: { status: 400 } }]);
    const { args, env } = modelFlags("openai", server);
    const home = await makeHome();
    const repo = await makeRepo({ "a.txt": "a\n" });
    const copy = await makeRepo({ "a.txt": "a\n" });
    const failed = await runCairn(
      ["do", "fix it", ...args, "--cwd", copy, "--batch-workspace", repo, "--output-format", "json"],
      { home, env },
    );
    expect(failed.code).not.toBe(0);
    const { session_id: id } = JSON.parse(failed.stdout) as { session_id: string };
    const listed = JSON.parse((await runCairn(["sessions", "--json"], { home })).stdout) as Array<{
      workspace: string;
    }>;
    expect(listed.map((s) => s.workspace)).toEqual([repo]);
    await rm(copy, { recursive: true });
    const run = await runCairn(["resume", id, ...args], { home, env });
    expectRefused(
      run,
      `cairn: session ${id} ran in a batch's copy of ${repo} (${copy}), which no longer exists; it can be resumed only there.`,
    );
  });
});

describe("a command's name mistyped", () => {
  it.each([
    ["sesions", "sessions"],
    ["cost", "costs"],
    ["chekpoints", "checkpoints"],
    ["agnets", "agents"],
  ])("cairn %s is refused with the command it is near (%s), before any model call", async (typed, meant) => {
    const { args, env } = await silentModel();
    const run = await runCairn([typed, ...args], { home: await makeHome(), env });
    expectRefused(run, `error: unknown command '${typed}' (did you mean \`cairn ${meant}\`?)`);
    expect(server?.requests).toHaveLength(0);
  });

  it.each([["refactor"], ["go"], ["sesions", "please"]])(
    "cairn %s … is a message for the agent, as is a near miss given with -p",
    async (...words) => {
      server = await startScriptedServer([{ text: "Here." }, { text: "Here." }]);
      const { args, env } = modelFlags("openai", server);
      const repo = await makeRepo({});
      const run = await runCairn([...words, ...args, "--cwd", repo], { home: await makeHome(), env });
      expect(run.code, run.stderr).toBe(0);
      const print = await runCairn(["-p", "sesions", ...args, "--cwd", repo], {
        home: await makeHome(),
        env,
      });
      expect(print.code, print.stderr).toBe(0);
      expect(server.requests).toHaveLength(2);
    },
  );
});

describe("--debug-log", () => {
  it("in a folder that does not exist is bad usage, and no folder is made for it", async () => {
    const { args, env } = await silentModel();
    const repo = await makeRepo({});
    const missing = path.join(repo, "no", "such", "dir");
    const run = await runCairn(
      ["do", "fix it", ...args, "--cwd", repo, "--debug-log", path.join(missing, "x.jsonl")],
      {
        home: await makeHome(),
        env,
      },
    );
    expectRefused(
      run,
      `error: option '--debug-log <file>' argument '${path.join(missing, "x.jsonl")}' is invalid. its folder ${missing} does not exist (make it first, or name a file in a folder that does).`,
    );
    expect(existsSync(path.join(repo, "no"))).toBe(false);
    expect(server?.requests).toHaveLength(0);
  });

  it("that names a folder is bad usage", async () => {
    const repo = await makeRepo({});
    const run = await runCairn(["do", "fix it", "--cwd", repo, "--debug-log", repo], {
      home: await makeHome(),
    });
    expectRefused(run, "is invalid. it is a folder; name a file in it.");
  });
});
