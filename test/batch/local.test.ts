import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { jsonLines, makeHome, makeRepo, modelFlags, runCairn, spawnCairn } from "../helpers/cli.js";
import { byTask, readResults, writes } from "../helpers/tasks.js";
import { scaled } from "../helpers/timeScale.js";
import { type ScriptedServer, startScriptedServer } from "../support/scriptedServer.js";

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, encoding: "utf8" });

async function gitRepo(files: Record<string, string>): Promise<string> {
  const repo = await makeRepo(files);
  git(repo, "init", "-q");
  git(repo, "add", ".");
  git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init");
  return repo;
}

describe("cairn batch on this machine", () => {
  it("runs each task in its own copy, writes results and a summary, and skips finished tasks when re-run", async () => {
    const repo = await gitRepo({ "greet.txt": "hello\n" });
    const plain = await makeRepo({ "README.md": "a plain folder\n" });
    let okTxtTries = 0;
    server = await startScriptedServer(
      byTask({
        "[t1]": writes("greet.txt", "hi\n"),
        "[t2]": writes("notes.txt", "notes\n"),
        // Done wrong the first time (its check fails), right when retried with --retry-failed.
        "[t3]": (turn) => {
          if (turn === 0) okTxtTries++;
          return writes(okTxtTries === 1 ? "wrong.txt" : "ok.txt", "ok\n")(turn);
        },
      }),
    );
    const home = await makeHome();
    const tasks = path.join(home, "tasks.jsonl");
    await writeFile(
      tasks,
      [
        { id: "t1", repo, task: "Say hi in greet.txt [t1]", mode: "do", verify: "grep -qx hi greet.txt" },
        // No check: its change is made and nothing checks it, so it ends unverified.
        { id: "t2", repo, task: "Write notes.txt [t2]", mode: "do" },
        { id: "t3", repo: plain, task: "Create ok.txt [t3]", mode: "do", verify: "test -f ok.txt" },
      ]
        .map((task) => JSON.stringify(task))
        .join("\n"),
    );
    const out = path.join(home, "out");
    const { args, env } = modelFlags("openai", server);
    const batch = (...extra: string[]) =>
      runCairn(
        ["batch", tasks, "--jobs", "2", "--out", out, "--output-format", "stream-json", ...args, ...extra],
        {
          home,
          env,
          timeoutMs: 60_000,
        },
      );

    const first = await batch("--keep-failed");
    expect(first.code, first.stdout).toBe(1);
    const events = jsonLines(first.stdout);
    expect(events.filter((e) => e.type === "task.finished")).toHaveLength(3);
    // Never more than --jobs tasks at once.
    let running = 0;
    let most = 0;
    for (const event of events) {
      if (event.type === "task.started") most = Math.max(most, ++running);
      if (event.type === "task.finished") running--;
    }
    expect(most).toBeLessThanOrEqual(2);

    const results = await readResults(out);
    expect(results.map((r) => r.id).sort()).toEqual(["t1", "t2", "t3"]);
    const byId = Object.fromEntries(results.map((r) => [r.id, r]));
    // Two tasks on one repository each saw only their own change, and the repository none.
    expect(byId.t1?.status).toBe("completed");
    expect(byId.t2?.status).toBe("unverified");
    expect(byId.t1?.patch).toMatch(/^-hello$/m);
    expect(byId.t1?.patch).toMatch(/^\+hi$/m);
    expect(byId.t1?.patch).not.toContain("notes.txt");
    expect(byId.t2?.patch).toContain("+++ b/notes.txt");
    expect(byId.t2?.patch).not.toContain("greet.txt");
    expect(byId.t1?.base).toBe(git(repo, "rev-parse", "HEAD").trim());
    expect(await readFile(path.join(repo, "greet.txt"), "utf8")).toBe("hello\n");
    expect(git(repo, "status", "--porcelain")).toBe("");
    // The only worktree left beside the repository's own is the unverified task's, kept (--keep-failed).
    const worktrees = git(repo, "worktree", "list").trim().split("\n");
    expect(worktrees).toHaveLength(2);
    expect(worktrees[1]).toContain(byId.t2!.kept!);
    expect(existsSync(path.join(plain, "ok.txt"))).toBe(false);
    // The plain folder's task failed its check; its cost and tokens by phase are in the record.
    expect(byId.t3?.status).toBe("failed");
    expect(byId.t3?.validation).toMatchObject({ ran: true, passed: false });
    // Kept to look at (--keep-failed), with the wrong file in it, as is the unverified one; the
    // completed one was removed.
    expect(await readFile(path.join(byId.t3!.kept!, "wrong.txt"), "utf8")).toBe("ok\n");
    expect(await readFile(path.join(byId.t2!.kept!, "notes.txt"), "utf8")).toBe("notes\n");
    expect(byId.t1?.kept).toBeUndefined();
    for (const task of [byId.t2, byId.t3])
      await rm(path.dirname(task!.kept!), { recursive: true, force: true });
    expect(byId.t1?.usage.by_phase.execution?.calls).toBe(2);
    expect(byId.t1?.cost_usd).toBeGreaterThan(0);

    const summary = await readFile(path.join(out, "summary.md"), "utf8");
    // Unverified is counted apart: not a success, not a failure.
    expect(summary).toContain("1/3 completed (33%) · 1 unverified (changed, not checked)");
    expect(summary).toMatch(/\| all \| 3 \| 1 \| 1 \| 1 \| 33% \|/);
    expect(summary).toMatch(/\| t2 \| openai\/gpt-4o \| unverified \|/);
    expect(summary).toMatch(/\| t3 \| openai\/gpt-4o \| failed \|/);
    const result = events.find((e) => e.type === "result");
    expect(result).toMatchObject({ tasks: 3, completed: 1, unverified: 1, failed: 1 });

    // The sessions are in the store as usual, under the repositories the tasks are of, not under
    // the throwaway copies they worked in; and so are their costs.
    const sessions = await runCairn(["sessions", "--json"], { home });
    const listed = JSON.parse(sessions.stdout) as Array<{ workspace: string }>;
    expect(listed.map((s) => s.workspace).sort()).toEqual([plain, repo, repo].sort());
    const costs = await runCairn(["costs", "--by", "workspace", "--json"], { home });
    expect(costs.stdout).toContain(JSON.stringify(repo));
    expect(costs.stdout).not.toContain("cairn-batch-");

    // The same batch again: nothing to do, no model call.
    const calls = server.requests.length;
    const again = await batch();
    expect(again.code).toBe(1);
    expect(jsonLines(again.stdout).find((e) => e.type === "batch.started")).toMatchObject({
      total: 0,
      skipped: 3,
    });
    expect(server.requests.length).toBe(calls);

    // --retry-failed runs again the tasks that did not complete — the unverified one too, which
    // ends so again with nothing to check it — and their new records replace the old ones. Left
    // with an unverified task and no failed one, the batch exits 3, as a session would.
    const retry = await batch("--retry-failed");
    expect(retry.code, retry.stderr).toBe(3);
    expect(jsonLines(retry.stdout).find((e) => e.type === "batch.started")).toMatchObject({
      total: 2,
      skipped: 1,
    });
    const retried = await readResults(out);
    expect(retried.map((r) => r.id).sort()).toEqual(["t1", "t2", "t3"]);
    expect(retried.find((r) => r.id === "t3")?.status).toBe("completed");
    expect(retried.find((r) => r.id === "t2")?.status).toBe("unverified");
    expect(await readFile(path.join(out, "summary.md"), "utf8")).toContain(
      "2/3 completed (67%) · 1 unverified (changed, not checked)",
    );
  });

  it("stops starting tasks once the batch's --max-cost is spent, and says so", async () => {
    const repo = await makeRepo({ "a.txt": "a\n" });
    server = await startScriptedServer(
      byTask({ "[c1]": writes("b.txt", "b\n"), "[c2]": writes("c.txt", "c\n") }),
    );
    const home = await makeHome();
    const tasks = path.join(home, "tasks.yaml");
    await writeFile(
      tasks,
      `tasks:\n  - {id: c1, repo: ${repo}, task: "[c1] b", mode: do}\n  - {id: c2, repo: ${repo}, task: "[c2] c", mode: do}\n`,
    );
    const { args, env } = modelFlags("openai", server);
    const run = await runCairn(["batch", tasks, "--jobs", "1", "--max-cost", "0.001", ...args], {
      home,
      env,
      timeoutMs: 60_000,
    });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/--max-cost \$0\.001 reached .*1 task\(s\) not started/);
    expect(run.stdout).toContain("1 not started (--max-cost reached)");
    const results = await readResults(path.join(home, "tasks.results"));
    expect(results.map((r) => r.id)).toEqual(["c1"]);
  });

  it("on Ctrl-C stops the running task, records nothing for it, and says so", async () => {
    const repo = await makeRepo({ "a.txt": "a\n" });
    server = await startScriptedServer(byTask({ "[slow]": () => ({ hang: true }) }));
    const home = await makeHome();
    const tasks = path.join(home, "tasks.jsonl");
    await writeFile(tasks, JSON.stringify({ id: "slow", repo, task: "Take your time [slow]", mode: "do" }));
    const { args, env } = modelFlags("openai", server);
    const child = spawnCairn(["batch", tasks, "--output-format", "stream-json", ...args], { home, env });
    let stdout = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
    while (!server.requests.some((r) => r.rawBody.includes("[slow]")))
      await new Promise((r) => setTimeout(r, 50));
    child.kill("SIGINT");
    expect(await exited).toBe(1);
    const events = jsonLines(stdout);
    expect(events.find((e) => e.type === "task.cancelled")).toMatchObject({ id: "slow" });
    expect(events.find((e) => e.type === "result")).toMatchObject({ tasks: 0, cancelled: 1 });
    expect(await readResults(path.join(home, "tasks.results"))).toEqual([]);
  });

  it("says what is wrong with a tasks file, line by line, before running anything", async () => {
    const home = await makeHome();
    const tasks = path.join(home, "tasks.jsonl");
    await writeFile(
      tasks,
      '{"id":"a","repo":".","task":"x","mode":"fix"}\n{"id":"b","task":"y","timout":5}\n',
    );
    const run = await runCairn(["batch", tasks], { home });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("tasks.jsonl line 1: `mode`: expected one of do, run");
    expect(run.stderr).toContain("tasks.jsonl line 2: unknown key `timout` (did you mean `timeout`?)");
    expect(run.stderr).toContain("tasks.jsonl line 2: `repo`: expected text (got nothing)");
  });
});

describe("a task's repository is not trusted unless the batch file or this machine's config says so", () => {
  it(
    "applies the repository's own rule only for trust_workspace, or trusted_folders in --config",
    async () => {
      const repo = await gitRepo({ ".cairn/config.yaml": "rules:\n  - { command: touch, action: allow }\n" });
      const touches = (file: string) => (turn: number) =>
        turn === 0
          ? { toolCalls: [{ name: "run_command", args: { command: `touch ${file}` } }] }
          : { text: "Done." };
      server = await startScriptedServer(
        byTask({ "[t1]": touches("t1.txt"), "[t2]": touches("t2.txt"), "[t3]": touches("t3.txt") }),
      );
      const home = await makeHome();
      const { args, env } = modelFlags("openai", server);
      const batch = async (name: string, tasks: object[], extra: string[] = []) => {
        const file = path.join(home, `${name}.jsonl`);
        await writeFile(file, tasks.map((task) => JSON.stringify(task)).join("\n"));
        const out = path.join(home, `out-${name}`);
        await runCairn(
          [
            "batch",
            file,
            "--out",
            out,
            "--approval",
            "auto-edit",
            "--output-format",
            "json",
            ...args,
            ...extra,
          ],
          { home, env, timeoutMs: 60_000 },
        );
        return Object.fromEntries((await readResults(out)).map((record) => [record.id, record]));
      };
      const byFile = await batch("file", [
        { id: "t1", repo, task: "Touch [t1]", mode: "do" },
        // Checked by the file its command makes: done, it completes.
        { id: "t2", repo, task: "Touch [t2]", mode: "do", trust_workspace: true, verify: "test -f t2.txt" },
      ]);
      expect(byFile.t1?.status).toBe("failed");
      expect(byFile.t1?.patch).not.toContain("t1.txt");
      expect(byFile.t2?.status).toBe("completed");
      expect(byFile.t2?.patch).toContain("diff --git a/t2.txt b/t2.txt");

      const machine = path.join(home, "machine.yaml");
      await writeFile(machine, `trusted_folders: [${JSON.stringify(repo)}]\n`);
      const byConfig = await batch(
        "config",
        [{ id: "t3", repo, task: "Touch [t3]", mode: "do", verify: "test -f t3.txt" }],
        ["--config", machine],
      );
      expect(byConfig.t3?.status).toBe("completed");
      expect(byConfig.t3?.patch).toContain("diff --git a/t3.txt b/t3.txt");
      await Promise.all([
        rm(repo, { recursive: true, force: true }),
        rm(home, { recursive: true, force: true }),
      ]);
    },
    scaled(90_000),
  );
});
