import path from "node:path";
import type { CommandPart } from "../platform/shell/split.js";

function words(list: string): Set<string> {
  return new Set(list.split(" "));
}

/** Programs that only look: at files, at the system, or at nothing (cd, test, echo). */
const READ_ONLY = words(
  "cat head tail wc grep egrep fgrep rg ls tree file stat pwd echo printf which type whereis du df " +
    "cut tr nl od hexdump md5sum sha1sum sha256sum sha512sum cksum diff cmp comm basename dirname " +
    "realpath readlink true false test [ : cd pushd popd set uname whoami id jq column seq sleep find sort git",
);

/** Options that make one of those programs write files or run other programs. */
const ACTING_OPTIONS: Record<string, RegExp> = {
  find: /^-(?:delete|exec|execdir|ok|okdir|fprint0?|fprintf|fls)$/,
  sort: /^(?:-[a-zA-Z]*o|--output|--compress-program)/,
  tree: /^-[a-zA-Z]*o/,
  rg: /^--pre/,
  git: /^(?:--output|--ext-diff|--textconv|--open-files-in-pager)/,
};

/** Git subcommands that only read; `git -c …` or `-C` before them is not read-only. */
const GIT_READS = words(
  "status diff log show blame ls-files ls-tree rev-parse grep describe shortlog cat-file",
);

/**
 * An argument that may reach outside the workspace (an absolute or home path, `..`) or that is
 * known only when the command runs (`$VAR`, `$(…)`): reading there is no longer just looking at
 * the project, so the command is not let through as read-only.
 */
const REACHES_OUT = /(?:^|=)[~/]|(?:^|[=/])\.\.(?:\/|$)|\$/;

function programName(part: CommandPart): string {
  return path.basename(part.words[0] ?? "");
}

/**
 * Whether a command only reads inside the workspace, so that it needs no more approval than
 * read_file: a known read-only program, without options that make it act, without paths that
 * leave the workspace, and without its output going into a file.
 */
export function isReadOnly(part: CommandPart): boolean {
  const name = programName(part);
  if (part.writesFile || !READ_ONLY.has(name)) return false;
  const args = part.words.slice(1);
  if (name === "git" && !GIT_READS.has(args[0] ?? "")) return false;
  // Bare `set` prints every variable, secrets included, as `env` does.
  if (name === "set" && args.length === 0) return false;
  const acting = ACTING_OPTIONS[name];
  return !args.some((arg) => REACHES_OUT.test(arg) || acting?.test(arg));
}

/** Programs that are about the network whatever their arguments. */
const NETWORK_PROGRAMS = words(
  "curl wget ssh scp sftp rsync nc ncat netcat telnet ftp ping dig nslookup host npx pnpx bunx gh",
);

/** Subcommands that download or upload: package installs, git remotes, registries. */
const NETWORK_SUBCOMMANDS: Record<string, Set<string>> = {
  git: words("clone fetch pull push ls-remote submodule"),
  npm: words("install i ci add update upgrade publish outdated view info audit exec create"),
  pnpm: words("install i add update up dlx outdated publish"),
  yarn: words("install add upgrade up dlx publish outdated"),
  bun: words("install i add update x create"),
  pip: words("install download"),
  pip3: words("install download"),
  uv: words("pip sync add lock tool"),
  poetry: words("install add update lock"),
  cargo: words("install fetch update add search publish"),
  go: words("get install mod"),
  gem: words("install update"),
  bundle: words("install update"),
  composer: words("install require update"),
  apt: words("install update upgrade"),
  "apt-get": words("install update upgrade"),
  brew: words("install update upgrade"),
  docker: words("pull push login"),
};

/** Whether a command most likely needs the network, which the sandbox cuts unless allowed. */
export function needsNetwork(part: CommandPart): boolean {
  const name = programName(part);
  const args = part.words.slice(1);
  // `python -m pip install …` is pip.
  if (/^python[\d.]*$/.test(name) && args[0] === "-m") return needsNetwork({ ...part, words: args.slice(1) });
  if (NETWORK_PROGRAMS.has(name)) return true;
  // A bare `yarn` installs.
  if (name === "yarn" && args.length === 0) return true;
  const subcommand = args.find((arg) => !arg.startsWith("-"));
  return subcommand !== undefined && (NETWORK_SUBCOMMANDS[name]?.has(subcommand) ?? false);
}
