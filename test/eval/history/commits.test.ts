import { execFileSync } from "node:child_process";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { listCommits } from "../../../src/eval/history/commits.js";
import { JS_STEPS, makeHistory } from "../../helpers/history.js";

describe("the commits a history suite looks at", () => {
  it("the branch's own, the latest first, narrowed by --max, --paths and --until; each with what it changed", async () => {
    const { repo, commits } = await makeHistory(JS_STEPS);
    const all = await listCommits(repo, { firstParent: true });
    expect(all.map((commit) => commit.sha)).toEqual(Object.values(commits).reverse());
    expect(all.find((commit) => commit.sha === commits.fixMedian)).toMatchObject({
      parent: commits.initial,
      merge: false,
      files: ["src/stats.js", "test/median.test.js"],
    });
    expect(all.at(-1)).toMatchObject({ sha: commits.initial, parent: null, files: [] });

    const latest = await listCommits(repo, { firstParent: true, max: 2 });
    expect(latest.map((commit) => commit.sha)).toEqual([commits.fixMean, commits.fixAfterBreak]);
    const touching = await listCommits(repo, {
      firstParent: true,
      paths: ["src/mode.js", "test/median.test.js"],
    });
    expect(touching.map((commit) => commit.sha)).toEqual([
      commits.fixAfterBreak,
      commits.breaks,
      commits.fixMedian,
    ]);
    expect(await listCommits(repo, { firstParent: true, until: "1970-01-02" })).toEqual([]);
  });

  it("a merge, as a pull request: everything it brought in against its first parent; its branch's commits with --no-first-parent", async () => {
    const { repo, commits } = await makeHistory(JS_STEPS.slice(0, 1));
    const git = (...args: string[]) =>
      execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], {
        cwd: repo,
        encoding: "utf8",
      }).trim();
    git("checkout", "-q", "-b", "fix");
    await writeFile(path.join(repo, "src/stats.js"), "export const mean = () => 0;\n");
    git("commit", "-qam", "on the branch: the source");
    await writeFile(path.join(repo, "test/mean.test.js"), "// tests\n");
    git("commit", "-qam", "on the branch: the tests");
    git("checkout", "-q", "main");
    git("merge", "-q", "--no-ff", "-m", "Merge pull request #9 from fix", "fix");
    const merge = git("rev-parse", "HEAD");
    const [first] = await listCommits(repo, { firstParent: true });
    expect(first).toMatchObject({
      sha: merge,
      parent: commits.initial,
      merge: true,
      message: "Merge pull request #9 from fix",
      files: ["src/stats.js", "test/mean.test.js"],
    });
    expect(await listCommits(repo, { firstParent: true })).toHaveLength(2);
    expect(await listCommits(repo, { firstParent: false })).toHaveLength(4);
  });
});
