import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { findExecutable } from "../platform/processes.js";
import { inGroup, pidsGroup } from "./pidsCgroup.js";
import {
  limitsPrelude,
  type SandboxLimits,
  type SandboxWatch,
  taskLimit,
  watchSandbox,
} from "./sandboxLimits.js";
import type { Masks } from "./sandboxMasks.js";

export type SandboxKind = "bwrap" | "sandbox-exec" | "none";

export interface Sandbox {
  kind: SandboxKind;
  /** The sandbox program, when one was found. */
  path?: string;
  /** Why commands run unsandboxed: a sentence to show the user once. */
  reason?: string;
}

export interface WrapOptions {
  sandbox: Sandbox;
  /** Real path of the workspace: writable inside the sandbox. */
  workspace: string;
  /** Further real folders the command may write (config `workspace.extra_roots`). */
  extraRoots?: string[];
  /**
   * Host folder the command sees as /tmp, so that scratch files last from one command to the
   * next in a session. Without it each command gets an empty /tmp of its own.
   */
  tmpDir?: string;
  allowNetwork: boolean;
  /** Folders inside the writable ones that stay read-only; made first when missing. */
  readOnly?: string[];
  /** What the command may not read: secret files seen empty, credential folders seen empty, git configs without their credentials (sandboxMasks.ts). */
  masks?: Masks;
  /** Makes the read-only empty file shown in place of a secret one: the session's; else the process's own. */
  emptyFile?: () => string;
  /** What the command may take of the machine (config `sandbox.limits`): under bubblewrap, kept to. */
  limits?: SandboxLimits;
}

export interface WrappedCommand {
  file: string;
  args: string[];
  /** Keeps the command to its limits while it runs: `supervise` of spawnGroup; absent where they cannot be watched. */
  watch?: SandboxWatch;
}

const SANDBOX_EXEC = "/usr/bin/sandbox-exec";
/** Where /tmp is seen inside the Linux sandbox. */
const SANDBOX_TMP = "/tmp";

/** The folder of cairn's own package: the one above this module that holds a package.json. */
function packageRoot(): string {
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, "package.json"))) return dir;
    if (path.dirname(dir) === dir) return path.dirname(fileURLToPath(import.meta.url));
  }
}

/**
 * What a command needs of cairn's own installation, which a private /tmp would hide when cairn
 * is installed under /tmp (a clone there, as CI may make): the Node that runs it and its
 * packages (node_modules/.bin is on the PATH of npm scripts), and the files checks preload.
 */
function ownInstallation(): string[] {
  const mine = [packageRoot(), path.dirname(process.execPath)].map((dir) => realpathSync(dir));
  // What the sandbox hides is /tmp itself, wherever TMPDIR points (a test's own folder, say).
  const tmp = realpathSync(SANDBOX_TMP);
  return [...new Set(mine)].filter((dir) => dir === tmp || dir.startsWith(`${tmp}${path.sep}`));
}

/**
 * Environment for sandboxed commands. Home is read-only inside, so the caches tools write there
 * by default move to temp: npm (which fails without a writable cache, even for `npm test`) and
 * everything that follows XDG_CACHE_HOME (pip, Go's build cache, …). They start empty in each
 * session, and an `npm install` needs the network allowed.
 */
function sandboxEnv(tmp: string): Record<string, string> {
  return { TMPDIR: tmp, npm_config_cache: `${tmp}/.npm`, XDG_CACHE_HOME: `${tmp}/.cache` };
}

function shell(): string {
  return findExecutable("bash") ?? "/bin/sh";
}

/**
 * bubblewrap arguments. Notes on the choices:
 * - `--unshare-user --cap-drop ALL`: run by root, bwrap otherwise keeps every capability, and
 *   the command could simply remount `/` read-write.
 * - `--unshare-pid`: `kill -9 -1` inside reaches only the sandbox, and killing bwrap's init
 *   takes down every process inside, even one that left the process group.
 * - No `--new-session`: it guards against a command typing into the controlling terminal, but
 *   spawnGroup already starts a new session without one (detached), and a second session would
 *   put the command out of reach of the process-group kill that stops it on timeout.
 * - `--die-with-parent`: nothing outlives cairn.
 * - Host daemons listening on unix sockets (Docker's, an SSH agent) stay reachable through the
 *   read-only filesystem; the network namespace does not cover them.
 * - A repository's `.git/config` and `.git/hooks` are read-only (see gitGuard), and so is what
 *   the caller names in `readOnly`.
 */
function bwrapArgs(options: Omit<WrapOptions, "sandbox">): string[] {
  const args = ["--unshare-user", "--unshare-pid", "--cap-drop", "ALL", "--die-with-parent"];
  if (!options.allowNetwork) args.push("--unshare-net");
  args.push("--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc");
  // /tmp first: binds below it (a workspace in /tmp, as in tests) must land on top of it.
  if (options.tmpDir) args.push("--bind", options.tmpDir, SANDBOX_TMP);
  else args.push("--tmpfs", SANDBOX_TMP);
  for (const dir of ownInstallation()) args.push("--ro-bind", dir, dir);
  for (const dir of roots(options)) args.push("--bind", dir, dir, ...gitGuard(dir));
  for (const dir of options.readOnly ?? []) {
    // A missing folder could be created by the command; bound read-only, it can't. Where cairn
    // cannot make it, the command, run by the same user, cannot either.
    if (makeFolder(dir)) args.push("--ro-bind", dir, dir);
  }
  args.push(...maskArgs(options.masks, options.emptyFile ?? empty));
  for (const [name, value] of Object.entries(sandboxEnv(SANDBOX_TMP))) args.push("--setenv", name, value);
  return args;
}

let emptyFile: string | undefined;

/** A read-only empty file made in `dir`. */
function emptyFileIn(dir: string): string {
  const file = path.join(dir, "empty");
  writeFileSync(file, "", { mode: 0o444 });
  return file;
}

/** A read-only empty file to show in place of a secret one, made once per process, for commands of no session. */
function empty(): string {
  if (emptyFile === undefined) {
    const dir = mkdtempSync(path.join(tmpdir(), "cairn-mask-"));
    process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
    emptyFile = emptyFileIn(dir);
  }
  return emptyFile;
}

/**
 * Last, so they land on whatever was bound before: each hidden file replaced by an empty
 * read-only one, each hidden folder by an empty read-only tmpfs, with what it keeps visible
 * bound back in before it is made read-only (bwrap reads a bind's source from the host), and
 * each git config that holds a credential by its redacted copy, read-only.
 */
function maskArgs(masks: Masks | undefined, emptyFile: () => string): string[] {
  const args: string[] = [];
  for (const target of masks?.hide ?? []) {
    const stat = statSync(target, { throwIfNoEntry: false });
    if (stat?.isDirectory()) {
      const inside = (masks?.expose ?? []).filter((file) => file.startsWith(`${target}${path.sep}`));
      args.push(
        "--tmpfs",
        target,
        ...inside.flatMap((file) => ["--ro-bind", file, file]),
        "--remount-ro",
        target,
      );
    } else if (stat) {
      args.push("--ro-bind", emptyFile(), target);
    }
  }
  for (const { file, copy } of masks?.redacted ?? []) args.push("--ro-bind", copy, file);
  return args;
}

function makeFolder(dir: string): boolean {
  try {
    mkdirSync(dir, { recursive: true });
    return true;
  } catch {
    return false;
  }
}

/** The folders a sandboxed command may write, besides temp. */
function roots(options: Omit<WrapOptions, "sandbox">): string[] {
  return [options.workspace, ...(options.extraRoots ?? [])];
}

/** The `.git` folder of a writable root, when it has one. */
function gitDirOf(root: string): string | undefined {
  const git = path.join(root, ".git");
  return statSync(git, { throwIfNoEntry: false })?.isDirectory() ? git : undefined;
}

/**
 * Git runs what `.git/config` (core.fsmonitor, aliases, filters) and `.git/hooks` name, and
 * cairn's own git tools run outside the sandbox: a command that could write there would get out.
 * So both stay read-only, and `.git` becomes a mount point so it cannot be moved aside and
 * replaced. Commits, branches and stashes still work: they write objects, refs and the index.
 */
function gitGuard(root: string): string[] {
  const git = gitDirOf(root);
  if (!git) return [];
  const config = path.join(git, "config");
  const hooks = path.join(git, "hooks");
  const guardHooks = existsSync(hooks)
    ? ["--ro-bind", hooks, hooks]
    : ["--tmpfs", hooks, "--remount-ro", hooks];
  return ["--bind", git, git, "--ro-bind-try", config, config, ...guardHooks];
}

/**
 * A macOS Seatbelt profile: everything allowed except writes outside the workspace, the extra
 * roots and temp, and (unless allowed) network other than unix sockets. UNTESTED: cairn's CI
 * runs on Linux. Paths must be real (`/private/var/…`, not `/var/…`), or rules don't match.
 */
function seatbeltProfile(options: Omit<WrapOptions, "sandbox">, tmp: string): string {
  const writable = [...roots(options), tmp, realpathSync(tmpdir()), "/private/tmp"];
  const lines = [
    "(version 1)",
    "(allow default)",
    "(deny file-write*)",
    `(allow file-write* ${writable.map((dir) => `(subpath ${JSON.stringify(dir)})`).join(" ")}`,
    '  (regex #"^/dev/(null|zero|tty|dtracehelper|fd/[0-9]+|stdout|stderr)$"))',
  ];
  // As gitGuard does for bubblewrap; a later rule wins over an earlier one.
  for (const git of roots(options).flatMap((root) => gitDirOf(root) ?? [])) {
    const [dir, config, hooks] = [git, `${git}/config`, `${git}/hooks`].map((p) => JSON.stringify(p));
    lines.push(`(deny file-write* (literal ${dir}) (literal ${config}) (subpath ${hooks}))`);
  }
  for (const dir of options.readOnly ?? []) lines.push(`(deny file-write* (subpath ${JSON.stringify(dir)}))`);
  for (const target of options.masks?.hide ?? [])
    lines.push(`(deny file-read* (subpath ${JSON.stringify(target)}))`);
  for (const file of options.masks?.expose ?? [])
    lines.push(`(allow file-read* (literal ${JSON.stringify(file)}))`);
  if (!options.allowNetwork)
    lines.push("(deny network*)", "(allow network* (remote unix-socket) (local unix-socket))");
  return lines.join("\n");
}

/**
 * How to spawn a command line (run by bash, else sh) under the given sandbox: the workspace,
 * extra roots and temp writable, everything else read-only, the network off unless allowed.
 * With kind `none` the command runs as it is.
 */
export function wrapCommand(command: string, options: WrapOptions): WrappedCommand {
  const { sandbox, limits } = options;
  const run = [shell(), "-c", command];
  if (sandbox.kind === "bwrap") {
    // The kernel's own limits, set by the shell before the command, which cannot raise them again.
    const limited =
      limits && path.basename(run[0]!) === "bash" ? [run[0]!, "-c", limitsPrelude(limits) + command] : run;
    const bwrap: [string, string[]] = [sandbox.path ?? "bwrap", [...bwrapArgs(options), "--", ...limited]];
    if (!limits) return { file: bwrap[0], args: bwrap[1] };
    // Where the kernel's pids controller can be used, the bound holds at each fork, for root too.
    const group = pidsGroup(taskLimit(limits));
    const [file, args] = group ? inGroup(group, ...bwrap) : bwrap;
    return { file, args, watch: watchSandbox(limits, group?.remove) };
  }
  if (sandbox.kind === "sandbox-exec") {
    const tmp = options.tmpDir ?? realpathSync(tmpdir());
    const env = Object.entries(sandboxEnv(tmp)).map(([name, value]) => `${name}=${value}`);
    return {
      file: sandbox.path ?? SANDBOX_EXEC,
      args: ["-p", seatbeltProfile(options, tmp), "/usr/bin/env", ...env, ...run],
    };
  }
  return { file: run[0]!, args: run.slice(1) };
}

/** What the platform decides without running anything, or the bwrap trial that decides the rest. */
function preflight(): Sandbox | { bwrap: string; args: string[] } {
  if (process.platform === "darwin") {
    return existsSync(SANDBOX_EXEC)
      ? { kind: "sandbox-exec", path: SANDBOX_EXEC }
      : { kind: "none", reason: `Commands run unsandboxed: ${SANDBOX_EXEC} was not found.` };
  }
  if (process.platform !== "linux") {
    return {
      kind: "none",
      reason: `Commands run unsandboxed: cairn has no sandbox for ${process.platform}.`,
    };
  }
  const bwrap = findExecutable("bwrap");
  if (!bwrap) {
    return {
      kind: "none",
      reason:
        "Commands run unsandboxed: bubblewrap (bwrap) is not installed. Install it (e.g. apt install bubblewrap) " +
        "to confine commands to the workspace.",
    };
  }
  // Installed is not enough: in containers without user namespaces bwrap fails to start, so it
  // is tried once with the very arguments commands will get.
  return { bwrap, args: [...bwrapArgs({ workspace: tmpdir(), allowNetwork: false }), "--", "true"] };
}

/** What the trial run of bwrap says: `detail` is why it failed. */
function verdict(bwrap: string, failure: string | undefined): Sandbox {
  if (failure === undefined) return { kind: "bwrap", path: bwrap };
  return {
    kind: "none",
    path: bwrap,
    reason:
      `Commands run unsandboxed: bubblewrap is installed but cannot create a sandbox here (${failure}). ` +
      "This happens in containers that don't allow unprivileged user namespaces.",
  };
}

function probe(): Sandbox {
  const plan = preflight();
  if ("kind" in plan) return plan;
  const trial = spawnSync(plan.bwrap, plan.args, { encoding: "utf8", timeout: 10_000 });
  const failed = trial.status !== 0;
  return verdict(
    plan.bwrap,
    failed ? (trial.stderr || trial.error?.message || `exit ${trial.status}`).trim() : undefined,
  );
}

/** The same probe, with bwrap's trial run in the background. */
function probeAsync(): Promise<Sandbox> {
  const plan = preflight();
  if ("kind" in plan) return Promise.resolve(plan);
  return new Promise((resolve) => {
    const child = spawn(plan.bwrap, plan.args, { stdio: ["ignore", "ignore", "pipe"], timeout: 10_000 });
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.on("error", (error) => resolve(verdict(plan.bwrap, error.message)));
    child.on("close", (code) =>
      resolve(verdict(plan.bwrap, code === 0 ? undefined : stderr.trim() || `exit ${code}`)),
    );
  });
}

let detected: Sandbox | undefined;
let detecting: Promise<Sandbox> | undefined;

/** The sandbox commands can run under on this machine; probed once per process. */
export function detectSandbox(): Sandbox {
  detected ??= probe();
  return detected;
}

/**
 * The same, found without blocking: started early (before a session's modules load), bwrap's
 * trial run takes the other core instead of the start-up's time. `detectSandbox` answers from
 * it once it is done.
 */
export function detectSandboxSoon(): Promise<Sandbox> {
  detecting ??= detected
    ? Promise.resolve(detected)
    : probeAsync().then((sandbox) => {
        detected ??= sandbox;
        return detected;
      });
  return detecting;
}

/** The folder a session's sandboxed commands see as /tmp: made on first use. */
export interface SessionTmpDir {
  (): string;
  /** The read-only empty file the session's sandbox shows in place of a secret one. */
  empty(): string;
  /** A folder of cairn's own beside it (`git`: config copies without credentials), out of the commands' sight. */
  own(name: string): string;
  /** Removes both, with what the commands left: when the session closes, or cairn exits. */
  remove(): void;
}

/**
 * A session's scratch folder: what its sandboxed commands see as /tmp (scratch files last from
 * one command to the next, and not beyond the session), and beside it, out of their reach, the
 * empty file secret ones are seen as.
 */
export function sessionTmpDir(): SessionTmpDir {
  let root: string | undefined;
  let emptyFile: string | undefined;
  const remove = () => {
    if (root !== undefined) rmSync(root, { recursive: true, force: true });
    root = undefined;
    emptyFile = undefined;
    process.off("exit", remove);
  };
  const made = () => {
    if (root === undefined) {
      root = realpathSync(mkdtempSync(path.join(tmpdir(), "cairn-tmp-")));
      mkdirSync(path.join(root, "tmp"));
      process.once("exit", remove);
    }
    return root;
  };
  const get = () => path.join(made(), "tmp");
  const empty = () => {
    emptyFile ??= emptyFileIn(made());
    return emptyFile;
  };
  const own = (name: string) => {
    const folder = path.join(made(), name);
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    return folder;
  };
  return Object.assign(get, { empty, own, remove });
}
