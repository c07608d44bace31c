import { existsSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { isGitUrl, readEntries } from "../batch/spec.js";
import { commandsForTests, RUNNER_KINDS } from "./history/runners/index.js";
import { shellQuote } from "./runners.js";
import type { SweTask } from "./types.js";

/** SWE-bench stores test lists as JSON text; a list written as a list is taken too. */
const testList = z.union([
  z.array(z.string()),
  z.string().transform((text, ctx) => {
    try {
      const list = JSON.parse(text);
      if (Array.isArray(list) && list.every((item) => typeof item === "string")) return list as string[];
    } catch {}
    ctx.addIssue({ code: "custom", message: "expected a list of test commands, or that list as JSON text" });
    return z.NEVER;
  }),
]);

/** One instance as SWE-bench writes it; fields it has that grading does not need are ignored. */
const instanceSchema = z.object({
  instance_id: z.string().min(1),
  repo: z.string().min(1),
  base_commit: z.string().min(1),
  problem_statement: z.string().min(1),
  FAIL_TO_PASS: testList,
  PASS_TO_PASS: testList.default([]),
  /** Prefixed to each test of the lists when they name tests (`tests/x.py::test_y`) rather than commands. */
  test_command: z.string().min(1).optional(),
  test_patch: z.string().optional(),
  test_files: z.array(z.string()).default([]),
  /** The reference solution (SWE-bench's gold patch): what `--grade-only reference` grades. */
  patch: z.string().optional(),
  /** How the lists' tests are selected: a runner cairn knows (`cairn eval history` writes it), each file's tests in one command. */
  test_runner: z.enum(RUNNER_KINDS).optional(),
  /** Run first in the agent's copy and in each grading checkout (a link to installed packages, `npm ci`). */
  setup_command: z.string().min(1).optional(),
  /** Run in each grading checkout before the tests. */
  build_command: z.string().min(1).optional(),
});

type Instance = z.infer<typeof instanceSchema>;

/**
 * The instance's test lists as commands: each test appended to `test_command` (or a command
 * itself), or with `test_runner`, each file's tests selected in one run of the runner.
 */
function testCommands(value: Instance, tests: string[]): string[] {
  if (value.test_runner && value.test_command)
    return commandsForTests({ kind: value.test_runner, base: value.test_command }, tests);
  return tests.map((test) => (value.test_command ? `${value.test_command} ${shellQuote(test)}` : test));
}

/**
 * Where the repository is: a URL as it is; a folder relative to the instances file; and a
 * GitHub `owner/name`, as SWE-bench names repositories, as its GitHub URL.
 */
function repositoryOf(repo: string, base: string): string {
  if (isGitUrl(repo)) return repo;
  const local = path.resolve(base, repo);
  if (existsSync(local) || !/^[\w.-]+\/[\w.-]+$/.test(repo)) return local;
  return `https://github.com/${repo}.git`;
}

/** The instances of a `.jsonl`, `.json` or `.yaml` file. */
export async function loadInstances(file: string): Promise<SweTask[]> {
  const base = path.dirname(path.resolve(file));
  const entries = await readEntries(file, instanceSchema, "instances");
  return entries.map(({ value }) => ({
    kind: "swe",
    id: value.instance_id,
    repo: repositoryOf(value.repo, base),
    base_commit: value.base_commit,
    problem_statement: value.problem_statement,
    fail_to_pass: testCommands(value, value.FAIL_TO_PASS),
    pass_to_pass: testCommands(value, value.PASS_TO_PASS),
    ...(value.test_patch ? { test_patch: value.test_patch } : {}),
    test_files: value.test_files,
    ...(value.patch ? { reference_patch: value.patch } : {}),
    ...(value.setup_command ? { setup_command: value.setup_command } : {}),
    ...(value.build_command ? { build_command: value.build_command } : {}),
  }));
}
