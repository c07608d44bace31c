import { type ExecFileException, execFile } from "node:child_process";
import { promisify } from "node:util";

const execFileAsync = promisify(execFile);

/** A git command that failed, with git's own words. */
export class GitCommandError extends Error {
  override name = "GitCommandError";
}

/**
 * Runs git without a shell and returns its stdout. English messages, never a credentials prompt
 * (a batch has nobody to type a password), and an identity for the snapshot commits cairn makes.
 */
export async function git(cwd: string, args: string[], env: Record<string, string> = {}): Promise<string> {
  try {
    const { stdout } = await execFileAsync("git", args, {
      cwd,
      maxBuffer: 256 * 1024 * 1024,
      encoding: "utf8",
      env: {
        ...process.env,
        LC_ALL: "C",
        GIT_TERMINAL_PROMPT: "0",
        GIT_AUTHOR_NAME: "cairn",
        GIT_AUTHOR_EMAIL: "cairn@localhost",
        GIT_COMMITTER_NAME: "cairn",
        GIT_COMMITTER_EMAIL: "cairn@localhost",
        ...env,
      },
    });
    return stdout;
  } catch (error) {
    const failure = error as ExecFileException & { stderr?: string };
    if (failure.code === "ENOENT") throw new GitCommandError("git is not installed (not found on PATH).");
    const said = (failure.stderr ?? "").trim() || failure.message;
    throw new GitCommandError(`git ${args[0]} failed in ${cwd}: ${said}`);
  }
}

/** The top of the work tree `dir` is in, and `dir`'s place inside it; undefined outside git. */
export async function workTreeOf(dir: string): Promise<{ top: string; prefix: string } | undefined> {
  try {
    const [top, prefix] = (await git(dir, ["rev-parse", "--show-toplevel", "--show-prefix"])).split("\n");
    return top ? { top, prefix: prefix ?? "" } : undefined;
  } catch {
    return undefined;
  }
}
