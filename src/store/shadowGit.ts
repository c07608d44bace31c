import { spawn } from "node:child_process";

/**
 * A file's state as cairn saw it. `blob` is the git object id of the content (a link's target
 * for a symlink); `mode` is the permission bits, kept whole so undo gives back exactly the mode
 * there was, not only git's 644/755.
 */
export type State =
  | { kind: "absent" }
  | { kind: "file"; blob: string; mode: number }
  | { kind: "link"; blob: string };

/**
 * The user's git config must not reach the shadow repository: autocrlf would change bytes, gpg
 * signing would prompt, hooks or an fsmonitor would run their programs, auto-gc would stall a
 * tool call at random.
 */
const CONFIG = [
  "core.autocrlf=false",
  "core.fileMode=true",
  "core.hooksPath=/dev/null",
  "core.fsmonitor=false",
  "core.logAllRefUpdates=false",
  "commit.gpgSign=false",
  "gc.auto=0",
  "maintenance.auto=false",
].flatMap((setting) => ["-c", setting]);

/**
 * Inherited GIT_* variables (GIT_DIR, GIT_INDEX_FILE, GIT_OBJECT_DIRECTORY when cairn runs from a
 * hook, say) would point git at the user's repository; none of them may get through.
 */
function gitEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!name.startsWith("GIT_")) env[name] = value;
  return {
    ...env,
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_TERMINAL_PROMPT: "0",
    GIT_AUTHOR_NAME: "cairn",
    GIT_AUTHOR_EMAIL: "cairn@localhost",
    GIT_COMMITTER_NAME: "cairn",
    GIT_COMMITTER_EMAIL: "cairn@localhost",
    LC_ALL: "C",
  };
}

export interface GitOptions {
  input?: Buffer | string;
  cwd?: string;
  /** The index file to use instead of the repository's own. */
  indexFile?: string;
}

/** Runs git on the shadow repository (named in `args`) and returns its stdout. */
export function runGit(args: string[], options: GitOptions = {}): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const env = gitEnv();
    if (options.indexFile) env.GIT_INDEX_FILE = options.indexFile;
    const child = spawn("git", [...CONFIG, ...args], {
      env,
      stdio: ["pipe", "pipe", "pipe"],
      ...(options.cwd ? { cwd: options.cwd } : {}),
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
    child.once("error", reject);
    child.once("close", (code) => {
      if (code === 0) resolve(Buffer.concat(out));
      else reject(new Error(`git ${args.join(" ")} failed: ${Buffer.concat(err).toString().trim()}`));
    });
    // A git that fails before reading all its input closes the pipe; its exit code says why.
    child.stdin.on("error", () => {});
    child.stdin.end(options.input);
  });
}

export function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === "ENOENT" || code === "ENOTDIR";
}
