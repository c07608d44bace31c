import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { git } from "../../batch/git.js";
import { type IssueText, problemStatement } from "./issues.js";
import type { Mining } from "./mine.js";
import { buildHistoryReport, type HistoryReport, historyMarkdown } from "./report.js";
import type { InstanceFindings, MinedCommit } from "./types.js";

/** The suite's files in its folder (docs/eval.md, "History suites"). */
export const INSTANCES_FILE = "instances.jsonl";
const INSTANCE_FOLDERS = "instances";

type Instance = MinedCommit & InstanceFindings;

/** A repository's name, from its folder or URL (`https://github.com/o/calc.git` → `calc`). */
export function repositoryName(repo: string): string {
  const name = path.basename(repo.replace(/\/+$/, "")).replace(/\.git$/, "") || "repo";
  return name.replace(/[^\w.-]+/g, "-");
}

/** An instance's id: the repository's name and the fixing commit's (`calc-1a2b3c4d5e`). */
export function instanceId(repo: string, sha: string): string {
  return `${repositoryName(repo)}-${sha.slice(0, 10)}`;
}

/** One line of instances.jsonl, as SWE-bench writes an instance, with what cairn adds to run it. */
async function instanceLine(
  local: string,
  repo: string,
  mined: Instance,
  message: string,
  issues: ReadonlyMap<number, IssueText>,
) {
  const diff = (files: string[]) =>
    files.length
      ? git(local, ["diff", "--binary", "--no-renames", mined.parent!, mined.sha, "--", ...files])
      : "";
  return {
    instance_id: instanceId(repo, mined.sha),
    repo,
    base_commit: mined.parent!,
    problem_statement: problemStatement(message, issues),
    FAIL_TO_PASS: mined.fail_to_pass,
    PASS_TO_PASS: mined.pass_to_pass,
    test_command: mined.runner.base,
    test_runner: mined.runner.kind,
    patch: await diff(mined.source_files),
    test_patch: await diff(mined.test_files),
    ...(mined.setup_command ? { setup_command: mined.setup_command } : {}),
    ...(mined.build_command ? { build_command: mined.build_command } : {}),
    commit: mined.sha,
    created_at: mined.date,
  };
}

export interface SuiteWritten {
  report: HistoryReport;
  instances: number;
}

/**
 * Writes the suite into `dir`: `instances.jsonl` (oldest first), and for each instance a folder
 * with its task (`problem.md`), its reference change (`reference.patch`) and its withheld tests
 * (`tests.patch`); `report.json` and `report.md` say what was found and what was left out, and why.
 */
export async function writeSuite(
  dir: string,
  mining: Mining,
  options: { issues: ReadonlyMap<number, IssueText>; messages: ReadonlyMap<string, string>; jobs: number },
): Promise<SuiteWritten> {
  await mkdir(dir, { recursive: true });
  await rm(path.join(dir, INSTANCE_FOLDERS), { recursive: true, force: true });
  const instances = mining.commits
    .filter((mined): mined is Instance => mined.status === "instance")
    .reverse();
  const lines = [];
  for (const mined of instances) {
    const line = await instanceLine(
      mining.local,
      mining.repo,
      mined,
      options.messages.get(mined.sha) ?? mined.subject,
      options.issues,
    );
    const folder = path.join(dir, INSTANCE_FOLDERS, line.instance_id);
    await mkdir(folder, { recursive: true });
    await writeFile(path.join(folder, "problem.md"), `${line.problem_statement}\n`);
    await writeFile(path.join(folder, "reference.patch"), line.patch);
    await writeFile(path.join(folder, "tests.patch"), line.test_patch);
    lines.push(JSON.stringify(line));
  }
  const file = path.join(dir, INSTANCES_FILE);
  if (lines.length) await writeFile(file, `${lines.join("\n")}\n`);
  else await rm(file, { force: true });
  const report = buildHistoryReport(mining, {
    jobs: options.jobs,
    idOf: (sha) => instanceId(mining.repo, sha),
  });
  await writeFile(path.join(dir, "report.json"), `${JSON.stringify(report, null, 2)}\n`);
  await writeFile(path.join(dir, "report.md"), `${historyMarkdown(report)}\n`);
  return { report, instances: lines.length };
}
