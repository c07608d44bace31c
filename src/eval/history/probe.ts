import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { git } from "../../batch/git.js";
import { type Isolated, isolate } from "../../batch/isolate.js";
import type { CommitInfo } from "./commits.js";
import { type CheckoutCommands, checkoutCommands, setupCommand } from "./environment.js";
import { RUNNERS, type TestRunner } from "./runners/index.js";
import { splitChange } from "./testPaths.js";
import { runShell, runTests, type TestRun } from "./testRun.js";
import type {
  InstanceFindings,
  LeftOutFindings,
  LeftOutReason,
  MinedCommit,
  MiningSettings,
} from "./types.js";

/** Where a commit is mined: its repository, and where checkouts are made. */
export interface ProbePlace {
  /** A folder in a git repository, or a git URL. */
  repo: string;
  /** The repository's own checkout, when it is a folder: where its installed packages are. */
  checkout?: string;
  /** Where each commit's two worktrees are made. */
  root: string;
  /** Where URL repositories are cloned once. */
  cacheDir: string;
  signal?: AbortSignal;
}

type Findings = InstanceFindings | LeftOutFindings;

const leftOut = (reason: LeftOutReason, detail = ""): LeftOutFindings => ({
  status: "left_out",
  reason,
  detail,
});

/**
 * What a commit's diff alone says: it is no instance when it is the first commit, changes no
 * test, or changes tests (and docs) only. Undefined when its tests must be run to know.
 */
function fromDiff(commit: CommitInfo): LeftOutFindings | undefined {
  if (!commit.parent) return leftOut("root_commit");
  const change = splitChange(commit.files);
  if (change.tests.length === 0) return leftOut("no_test_change");
  if (change.source.length === 0) return leftOut("no_source_change");
  return undefined;
}

/** The commit's change to its tests, to put over the parent: what the agent never sees. */
export async function testPatch(
  repository: string,
  commit: CommitInfo,
  tests: readonly string[],
): Promise<string> {
  return git(repository, ["diff", "--binary", "--no-renames", commit.parent!, commit.sha, "--", ...tests]);
}

type RunOptions = { timeoutMs: number; signal?: AbortSignal; scratch?: string };

/** A checkout made ready: the setup run, then the build and the parse; a failure is why the commit is left out. */
async function ready(
  copy: Isolated,
  steps: { setup?: string | undefined; commands: CheckoutCommands; side: "parent" | "commit" },
  options: RunOptions,
): Promise<LeftOutFindings | undefined> {
  if (steps.setup) {
    const setup = await runShell(steps.setup, copy.dir, options);
    if (!setup.passed)
      return leftOut(setup.timedOut ? "timed_out" : "setup_failed", `$ ${steps.setup}\n${setup.output}`);
  }
  for (const command of [steps.commands.build, steps.commands.parse]) {
    if (!command) continue;
    const build = await runShell(command, copy.dir, options);
    if (build.passed) continue;
    const reason = steps.side === "parent" ? "build_fails_on_parent" : "build_fails_on_commit";
    return leftOut(build.timedOut ? "timed_out" : reason, `$ ${command}\n${build.output}`);
  }
  return undefined;
}

/** Tests whose outcome differs between two runs of the same checkout (or that only one run has). */
function differing(first: TestRun, second: TestRun): string[] {
  const ids = new Set([...first.outcomes.keys(), ...second.outcomes.keys()]);
  return [...ids].filter((id) => first.outcomes.get(id) !== second.outcomes.get(id));
}

const passing = (run: TestRun) => [...run.outcomes].filter(([, passed]) => passed).map(([id]) => id);

/**
 * Runs the tests on the commit and on its parent (with the commit's tests), each twice: the
 * tests that pass after and not before are FAIL_TO_PASS, those passing on both PASS_TO_PASS. A
 * test whose outcome changes between two runs of the same code makes the commit flaky.
 */
async function compare(
  runner: TestRunner,
  targets: readonly string[],
  dirs: { after: string; before: string },
  options: RunOptions,
): Promise<Findings> {
  const run = (dir: string) => runTests(runner, targets, dir, options);
  const after = await run(dirs.after);
  if (after.timedOut) return leftOut("timed_out", after.output);
  const passes = passing(after);
  if (passes.length === 0) return leftOut("no_passing_test", after.output);
  const before = await run(dirs.before);
  if (before.timedOut) return leftOut("timed_out", before.output);
  const failToPass = passes.filter((id) => before.outcomes.get(id) !== true);
  if (failToPass.length === 0) return leftOut("no_failing_test", `${passes.length} test(s) pass on both`);
  for (const [side, first, dir] of [
    ["commit", after, dirs.after],
    ["parent", before, dirs.before],
  ] as const) {
    const again = await run(dir);
    if (again.timedOut) return leftOut("timed_out", again.output);
    const flaky = differing(first, again);
    if (flaky.length) {
      const shown = flaky.slice(0, 5).join(", ") + (flaky.length > 5 ? `, and ${flaky.length - 5} more` : "");
      return leftOut("flaky", `on the ${side}: ${shown}`);
    }
  }
  const passToPass = passes.filter((id) => before.outcomes.get(id) === true);
  return {
    status: "instance",
    runner,
    fail_to_pass: failToPass,
    pass_to_pass: passToPass,
    setup_command: null,
    build_command: null,
  };
}

/** The commit's two checkouts made and readied, its tests compared on them; the checkouts removed. */
async function probeCheckouts(
  commit: CommitInfo,
  settings: MiningSettings,
  place: ProbePlace,
): Promise<Findings> {
  const change = splitChange(commit.files);
  const options = {
    timeoutMs: settings.timeoutMs,
    scratch: place.root,
    ...(place.signal ? { signal: place.signal } : {}),
  };
  const made: Isolated[] = [];
  const checkout = async (ref: string, side: string) => {
    const copy = await isolate({ id: `${commit.sha.slice(0, 12)}-${side}`, repo: place.repo, ref }, place);
    made.push(copy);
    return copy;
  };
  try {
    const after = await checkout(commit.sha, "commit");
    const before = await checkout(commit.parent!, "parent");
    const setup = setupCommand(place.checkout, settings);
    const afterCommands = await checkoutCommands(after.dir, change.source, settings);
    const beforeCommands = await checkoutCommands(before.dir, change.source, settings);
    const { runner } = afterCommands;
    if (!runner) return leftOut("no_runnable_test", "no test command found: give one with --test-cmd");
    const present = change.tests.filter((file) => existsSync(path.join(after.dir, file)));
    const targets = RUNNERS[runner.kind].runnable(present);
    if (targets.length === 0) return leftOut("no_runnable_test", change.tests.join(", "));
    const notReady =
      (await ready(before, { setup, commands: beforeCommands, side: "parent" }, options)) ??
      (await ready(after, { setup, commands: afterCommands, side: "commit" }, options));
    if (notReady) return notReady;
    const patchFile = path.join(place.root, `${commit.sha}.tests.patch`);
    await writeFile(patchFile, await testPatch(after.dir, commit, change.tests));
    await git(before.dir, ["apply", "--binary", "--whitespace=nowarn", patchFile]);
    const findings = await compare(runner, targets, { after: after.dir, before: before.dir }, options);
    if (findings.status !== "instance") return findings;
    return { ...findings, setup_command: setup ?? null, build_command: afterCommands.build ?? null };
  } finally {
    await Promise.all(made.map((copy) => copy.dispose()));
  }
}

/** The commit, as the suite's report names it. */
function about(commit: CommitInfo) {
  const change = splitChange(commit.files);
  return {
    sha: commit.sha,
    parent: commit.parent,
    date: commit.date,
    subject: commit.message.split("\n")[0] ?? "",
    test_files: change.tests,
    source_files: change.rest,
  };
}

/** The commit left out for what its diff alone says; undefined when its tests must be run to know. */
export function minedFromDiff(commit: CommitInfo): MinedCommit | undefined {
  const decided = fromDiff(commit);
  return decided ? { ...about(commit), mined_ms: 0, ...decided } : undefined;
}

/**
 * Mines one commit: from its diff when that decides, else by running its tests on it and on its
 * parent in worktrees of their own (never the user's checkout). Never throws for the commit's
 * own trouble: a failure is a commit left out, with what went wrong.
 */
export async function mineCommit(
  commit: CommitInfo,
  settings: MiningSettings,
  place: ProbePlace,
): Promise<MinedCommit> {
  const decided = minedFromDiff(commit);
  if (decided) return decided;
  const started = Date.now();
  let findings: Findings;
  try {
    findings = await probeCheckouts(commit, settings, place);
  } catch (error) {
    findings = leftOut("error", (error as Error).message);
  }
  return { ...about(commit), mined_ms: Date.now() - started, ...findings };
}
