import { type ExecFileException, execFile } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { z } from "zod";
import { truncateHeadTail } from "../platform/truncate.js";
import { redactGitConfig } from "../safety/gitConfigCredentials.js";
import { realPath, resolveInWorkspace } from "../safety/paths.js";
import { hideCredentialShapes } from "../safety/redact.js";
import { hasSecretName } from "../safety/secretFiles.js";
import { commandEnvironment } from "./command.js";
import { toolDescription } from "./descriptions.js";
import { ToolError } from "./toolError.js";
import { defineTool, type ToolContext } from "./types.js";
import { secretsNote } from "./workspaceFiles.js";

const execFileAsync = promisify(execFile);

/** A git failure, with git's own words so the model can act on them. */
class GitError extends ToolError {}

/**
 * Runs the real git binary in the workspace, without a shell, and returns its stdout. git runs
 * here outside the sandbox, with the repository's real config: what it says of the repository
 * (a remote's URL in an error, a hook's output) has the credentials of URLs and tokens taken out
 * before the model reads it. Files' `contents` (a diff) are returned as they are, as read_file
 * returns them: the model would write a placeholder back.
 */
async function runGit(ctx: ToolContext, args: string[], contents = false): Promise<string> {
  try {
    const { stdout } = await execFileAsync("git", args, {
      cwd: ctx.workspace,
      signal: ctx.signal,
      timeout: ctx.commandTimeoutMs,
      maxBuffer: 64 * 1024 * 1024,
      encoding: "utf8",
      // English messages, so failures can be recognised; never wait for credentials on a prompt.
      // Hooks (a pre-commit the model may have written) get what commands get: no secrets.
      env: { ...commandEnvironment(ctx), LC_ALL: "C", GIT_TERMINAL_PROMPT: "0" },
    });
    return contents ? stdout : hideCredentialShapes(stdout);
  } catch (error) {
    const failure = error as ExecFileException & { stdout?: string; stderr?: string };
    if (failure.name === "AbortError") throw error;
    if (failure.code === "ENOENT") throw new ToolError("git is not installed (not found on PATH).");
    const said = hideCredentialShapes(`${failure.stderr ?? ""}\n${failure.stdout ?? ""}`.trim());
    if (/not a git repository/i.test(said)) {
      // A .git that git does not recognise is a damaged repository, which `git init` would not mend.
      if (existsSync(path.join(ctx.workspace, ".git"))) {
        throw new ToolError(
          `${ctx.workspace} has a .git, but git cannot read it as a repository (${said.split("\n")[0]}): ` +
            "it looks damaged. Tell the user; don't run git init or other git commands over it.",
        );
      }
      throw new ToolError(
        `${ctx.workspace} is not a git repository. If it should be one, run \`git init\` with run_command.`,
      );
    }
    throw new GitError(`git ${args[0]} failed: ${said || hideCredentialShapes(failure.message)}`, {
      exit_code: failure.code,
    });
  }
}

export interface GitFileStatus {
  path: string;
  /** Porcelain status letters: index (staged) and work tree (unstaged); `??` is untracked. */
  index: string;
  worktree: string;
  /** Original path of a rename or copy. */
  from?: string;
}

export interface GitStatus {
  branch: string | null;
  upstream: string | null;
  ahead: number;
  behind: number;
  files: GitFileStatus[];
}

function parseBranchLine(line: string): Omit<GitStatus, "files"> {
  const status = { branch: null as string | null, upstream: null as string | null, ahead: 0, behind: 0 };
  const header = line.replace(/^## /, "");
  const unborn = /^(?:No commits yet|Initial commit) on (.+)$/.exec(header);
  if (unborn) return { ...status, branch: unborn[1]! };
  if (header.startsWith("HEAD (no branch)")) return status;
  const [names = "", counts = ""] = header.split(" [");
  const [branch, upstream] = names.split("...");
  return {
    branch: branch ?? null,
    upstream: upstream ?? null,
    ahead: Number(/ahead (\d+)/.exec(counts)?.[1] ?? 0),
    behind: Number(/behind (\d+)/.exec(counts)?.[1] ?? 0),
  };
}

/**
 * Branch and changed files, from the stable porcelain format. `eachUntracked` lists every new
 * file rather than a new folder as one entry.
 */
export async function gitStatus(ctx: ToolContext, eachUntracked = false): Promise<GitStatus> {
  const args = [
    "status",
    "--porcelain=v1",
    "--branch",
    "-z",
    ...(eachUntracked ? ["--untracked-files=all"] : []),
  ];
  const records = (await runGit(ctx, args)).split("\0");
  const status: GitStatus = { ...parseBranchLine(records[0] ?? ""), files: [] };
  for (let index = 1; index < records.length; index++) {
    const record = records[index]!;
    if (record.length < 4) continue;
    const file: GitFileStatus = { path: record.slice(3), index: record[0]!, worktree: record[1]! };
    if (file.index === "R" || file.index === "C") file.from = records[++index];
    status.files.push(file);
  }
  return status;
}

function describeBranch(status: GitStatus): string {
  if (!status.branch) return "detached HEAD";
  const parts = [`branch ${status.branch}`];
  if (status.upstream) parts.push(`tracking ${status.upstream}`);
  if (status.ahead) parts.push(`ahead ${status.ahead}`);
  if (status.behind) parts.push(`behind ${status.behind}`);
  return parts.join(", ");
}

const gitStatusTool = defineTool({
  name: "git_status",
  description: toolDescription("git_status"),
  schema: z.object({}),
  permission: "read",
  kind: "read",
  async execute(_args, ctx) {
    const status = await gitStatus(ctx);
    const head = `On ${describeBranch(status)}.`;
    const data = { kind: "git_status" as const, ...status };
    if (status.files.length === 0) return { text: `${head} Working tree clean.`, data };
    const lines = status.files.map(
      (file) => `${file.index}${file.worktree} ${file.from ? `${file.from} -> ` : ""}${file.path}`,
    );
    return { text: truncateHeadTail(`${head}\n${lines.join("\n")}`).text, data };
  },
  describe: () => "",
  touches: () => ({ reads: ["."], writes: [] }),
});

/** A diff's file sections, each with the path after the change. */
function diffSections(diff: string): Array<{ path: string; text: string }> {
  return diff
    .split(/^(?=diff --git )/m)
    .filter(Boolean)
    .map((text) => ({ path: /^diff --git "?a\/.*? "?b\/(.*?)"?$/m.exec(text)?.[1] ?? "", text }));
}

/** A diff section's lines as a git config is shown: the credentials of each line's settings taken out. */
function withoutGitCredentials(text: string): string {
  return text
    .split("\n")
    .map((line) =>
      /^[-+ ]/.test(line) && !/^(?:\+\+\+|---) /.test(line) ? line[0] + redactGitConfig(line.slice(1)) : line,
    )
    .join("\n");
}

/**
 * A diff without the sections of files that look like secrets, and how many were left out; the
 * changes of a git config file that holds credentials (one a repository's config includes) shown
 * without them, as the file is.
 */
async function withoutSecrets(ctx: ToolContext, diff: string): Promise<{ diff: string; secrets: number }> {
  const { secrets } = ctx;
  const sections = diffSections(diff);
  const copies = secrets?.shownCopies();
  if (!secrets || (!copies?.size && !sections.some((section) => hasSecretName(section.path))))
    return { diff, secrets: 0 };
  // Diff paths are relative to the repository's root, which may be above the workspace.
  const root = (await runGit(ctx, ["rev-parse", "--show-toplevel"])).trim();
  const kept = sections.filter((section) => !secrets.isOrWasSecret(path.resolve(root, section.path)));
  const shown = kept.map((section) =>
    copies?.has(realPath(path.resolve(root, section.path)))
      ? withoutGitCredentials(section.text)
      : section.text,
  );
  return { diff: shown.join(""), secrets: sections.length - kept.length };
}

const gitDiffTool = defineTool({
  name: "git_diff",
  description: toolDescription("git_diff"),
  schema: z.object({
    path: z.string().optional().describe("Limit the diff to this file or folder"),
    staged: z.boolean().optional().describe("Show staged changes instead of unstaged ones"),
  }),
  permission: "read",
  kind: "read",
  async execute({ path, staged }, ctx) {
    const args = ["diff", "--no-color", "--no-ext-diff"];
    if (staged) args.push("--cached");
    if (path) args.push("--", resolveInWorkspace(ctx, path, "read").absolute);
    const { diff, secrets } = await withoutSecrets(ctx, await runGit(ctx, args, true));
    const kind = staged ? "staged" : "unstaged";
    const note = secretsNote(secrets, "shown");
    if (!diff) {
      const none = `No ${kind} changes${secrets ? " to show" : ""}${path ? ` in ${path}` : ""}.`;
      return {
        text: note ? `${none}\n${note}` : none,
        data: { kind: "git_diff", staged: !!staged },
      };
    }
    const cut = truncateHeadTail(diff);
    return {
      text: note ? `${cut.text}\n${note}` : cut.text,
      data: { kind: "git_diff", staged: !!staged, truncated: cut.truncated, bytes: cut.total_bytes },
    };
  },
  describe: ({ path }) => path ?? "",
  touches: ({ path }) => ({ reads: [path ?? "."], writes: [] }),
});

const FIELD = "\x1f";
const RECORD = "\x1e";

const gitLogTool = defineTool({
  name: "git_log",
  description: toolDescription("git_log"),
  schema: z.object({
    limit: z.number().int().min(1).max(200).optional().describe("How many commits (default 20)"),
  }),
  permission: "read",
  kind: "read",
  async execute({ limit }, ctx) {
    let out: string;
    try {
      out = await runGit(ctx, [
        "log",
        `-n${limit ?? 20}`,
        "--date=short",
        `--format=%h${FIELD}%ad${FIELD}%an${FIELD}%s${RECORD}`,
      ]);
    } catch (error) {
      if (error instanceof GitError && /does not have any commits/.test(error.message)) {
        return { text: "No commits yet.", data: { kind: "git_log", commits: [] } };
      }
      throw error;
    }
    const commits = out
      .split(RECORD)
      .map((record) => record.trim())
      .filter(Boolean)
      .map((record) => {
        const [hash = "", date = "", author = "", subject = ""] = record.split(FIELD);
        return { hash, date, author, subject };
      });
    const text = commits.map((c) => `${c.hash} ${c.date} ${c.author}: ${c.subject}`).join("\n");
    return { text: text || "No commits yet.", data: { kind: "git_log", commits } };
  },
  describe: () => "",
  touches: () => ({ reads: ["."], writes: [] }),
});

const gitStageFilesTool = defineTool({
  name: "git_stage_files",
  description: toolDescription("git_stage_files"),
  schema: z.object({
    paths: z.array(z.string()).min(1).describe("Files or folders to stage"),
  }),
  permission: "write",
  kind: "edit",
  async execute({ paths }, ctx) {
    const absolute = paths.map((requested) => resolveInWorkspace(ctx, requested, "write").absolute);
    await runGit(ctx, ["add", "--", ...absolute]);
    const staged = (await runGit(ctx, ["diff", "--cached", "--name-status"])).trim();
    return {
      text: staged ? `Staged changes now:\n${staged}` : "Nothing is staged (the paths have no changes).",
      data: { kind: "git_staged", staged: staged ? staged.split("\n") : [] },
    };
  },
  describe: ({ paths }) => paths.join(" "),
  // Staging changes the repository's index, not a file in the work tree.
  touches: () => ({ writes: [] }),
});

const gitCommitTool = defineTool({
  name: "git_commit",
  description: toolDescription("git_commit"),
  schema: z.object({
    message: z.string().min(1).describe("The commit message: a summary line, then details if useful"),
  }),
  permission: "write",
  kind: "edit",
  async execute({ message }, ctx) {
    const staged = await runGit(ctx, ["diff", "--cached", "--name-only"]);
    if (!staged.trim()) {
      throw new ToolError("Nothing is staged to commit; stage changes with git_stage_files first.");
    }
    const out = await runGit(ctx, ["commit", "-m", message]);
    const hash = (await runGit(ctx, ["rev-parse", "HEAD"])).trim();
    return { text: out.trim(), data: { kind: "git_commit", hash } };
  },
  describe: ({ message }) => message.split("\n")[0] ?? "",
  touches: () => ({ writes: [] }),
});

export const gitTools = [gitStatusTool, gitDiffTool, gitLogTool, gitStageFilesTool, gitCommitTool];
