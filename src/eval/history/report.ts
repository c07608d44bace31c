import { firstLine, formatDuration, plural } from "../../platform/format.js";
import { clip, renderTable } from "../../platform/table.js";
import type { Mining } from "./mine.js";
import { type LeftOutReason, REASON_TEXT } from "./types.js";

/** What `cairn eval history` found, written as the suite's report.json. */
export interface HistoryReport {
  repo: string;
  head: string;
  range: {
    since: string | null;
    until: string | null;
    max: number | null;
    paths: string[];
    first_parent: boolean;
  };
  /** How tests ran: the command given, or null when found in each commit. */
  test_command: string | null;
  /** The build given; false with --no-build; null when found in each commit. */
  build_command: string | false | null;
  setup_command: string | null;
  mined_at: string;
  wall_ms: number;
  jobs: number;
  /** Commits found in the store from an earlier run. */
  cached: number;
  /** False when mining was interrupted: the suite holds what was mined so far. */
  complete: boolean;
  totals: {
    commits: number;
    instances: number;
    left_out: number;
    by_reason: Partial<Record<LeftOutReason, number>>;
  };
  instances: Array<{
    instance_id: string;
    commit: string;
    subject: string;
    runner: string;
    fail_to_pass: number;
    pass_to_pass: number;
  }>;
  left_out: Array<{ commit: string; subject: string; reason: LeftOutReason; why: string; detail: string }>;
}

export function buildHistoryReport(
  mining: Mining,
  options: { jobs: number; idOf: (sha: string) => string },
): HistoryReport {
  const instances = mining.commits.flatMap((mined) =>
    mined.status === "instance"
      ? [
          {
            instance_id: options.idOf(mined.sha),
            commit: mined.sha,
            subject: mined.subject,
            runner: mined.runner.kind,
            fail_to_pass: mined.fail_to_pass.length,
            pass_to_pass: mined.pass_to_pass.length,
          },
        ]
      : [],
  );
  const leftOut = mining.commits.flatMap((mined) =>
    mined.status === "left_out"
      ? [
          {
            commit: mined.sha,
            subject: mined.subject,
            reason: mined.reason,
            why: REASON_TEXT[mined.reason],
            detail: mined.detail,
          },
        ]
      : [],
  );
  const byReason: Partial<Record<LeftOutReason, number>> = {};
  for (const { reason } of leftOut) byReason[reason] = (byReason[reason] ?? 0) + 1;
  const { range, settings } = mining;
  return {
    repo: mining.repo,
    head: mining.head,
    range: {
      since: range.since ?? null,
      until: range.until ?? null,
      max: range.max ?? null,
      paths: range.paths ?? [],
      first_parent: range.firstParent,
    },
    test_command: settings.testCommand ?? null,
    build_command: settings.buildCommand ?? null,
    setup_command: mining.setup ?? null,
    mined_at: new Date().toISOString(),
    wall_ms: mining.wall_ms,
    jobs: options.jobs,
    cached: mining.cached,
    complete: mining.complete,
    totals: {
      commits: mining.commits.length,
      instances: instances.length,
      left_out: leftOut.length,
      by_reason: byReason,
    },
    instances,
    left_out: leftOut,
  };
}

/** The one line said at the end: what was found, from how many commits, in how long. */
export function historyHeadline(report: HistoryReport): string {
  const from = `${plural(report.totals.commits, "commit")} of ${report.repo}`;
  const cached = report.cached ? `, ${report.cached} from the store` : "";
  const partial = report.complete ? "" : " (interrupted: run it again to go on)";
  return `${plural(report.totals.instances, "instance")} from ${from}${cached} in ${formatDuration(report.wall_ms)}${partial}`;
}

/** A detail in one line: its first (the command that failed, the flaky test) and, when it has more, its last. */
function detailLine(detail: string): string {
  const lines = detail
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean);
  const last = lines.length > 1 ? ` … ${clip(lines.at(-1)!, 120)}` : "";
  return `${clip(lines[0] ?? "", 120)}${last}`;
}

/** The report for people: how it was mined, the instances, and every commit left out with why. */
export function historyMarkdown(report: HistoryReport): string {
  const settings = [
    `- repository: ${report.repo} at ${report.head.slice(0, 12)}`,
    `- tests: ${report.test_command ? `\`${report.test_command}\`` : "the test command cairn run finds, in each commit"}`,
    `- build: ${report.build_command === false ? "none (--no-build)" : report.build_command ? `\`${report.build_command}\`` : "the project's build script, and a parse of the changed sources, in each commit"}`,
    `- setup: ${report.setup_command ? `\`${report.setup_command}\`` : "none"}`,
    `- mined with --jobs ${report.jobs} in ${formatDuration(report.wall_ms)}; ${report.cached} of ${report.totals.commits} commits from the store`,
  ];
  const parts = [`# History suite: ${historyHeadline(report)}`, settings.join("\n")];
  if (report.instances.length) {
    parts.push(
      "## Instances",
      renderTable(
        [
          { header: "instance", cell: (row) => row.instance_id },
          { header: "commit", cell: (row) => firstLine(row.subject, 72) },
          { header: "runner", cell: (row) => row.runner },
          { header: "fail→pass", cell: (row) => String(row.fail_to_pass), align: "right" },
          { header: "pass→pass", cell: (row) => String(row.pass_to_pass), align: "right" },
        ],
        report.instances,
        "markdown",
      ),
    );
  }
  if (report.left_out.length) {
    const counts = Object.entries(report.totals.by_reason).map(([reason, count]) => ({
      reason: reason as LeftOutReason,
      count,
    }));
    parts.push(
      "## Left out",
      renderTable(
        [
          { header: "why", cell: (row) => REASON_TEXT[row.reason] },
          { header: "commits", cell: (row) => String(row.count), align: "right" },
        ],
        counts,
        "markdown",
      ),
      report.left_out
        .map(
          (row) =>
            `- ${row.commit.slice(0, 10)} ${firstLine(row.subject, 72)}: ${row.why}${row.detail ? ` — ${detailLine(row.detail)}` : ""}`,
        )
        .join("\n"),
    );
  }
  return parts.join("\n\n");
}
