import { type Dirent, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { realPath } from "./paths.js";
import { hiddenSetting, hideCredentialShapes } from "./redact.js";
import { repositoryRoot } from "./secretGit.js";

/**
 * Credentials written into git's own settings (a token in a remote's URL, an Authorization
 * header in `http.extraheader`), which any command could print with `git remote -v` or
 * `cat .git/config`. The sandbox shows each such file as a copy with them taken out, bound over
 * the original (docs/security.md#sandbox); git reads the rest as it was.
 */

/** A section header, maybe with a subsection (`[remote "origin"]`), and what may follow it on the line. */
const SECTION = /^\s*\[\s*([A-Za-z0-9.-]+)(?:\s+"(?:[^"\\\n]|\\.)*")?\s*\]/;
/** `name = value`; a name alone (a boolean set true) holds nothing. */
const ENTRY = /^(\s*)([A-Za-z][A-Za-z0-9-]*)(\s*=\s*)(.*)$/;
/** git's own limit on nested includes. */
const MAX_INCLUDE_DEPTH = 10;

/** Whether a line's value goes on to the next line (an odd number of backslashes at its end). */
function continues(line: string): boolean {
  return /(?:^|[^\\])(?:\\\\)*\\\r?$/.test(line);
}

/** A value as git reads it: quotes and escapes resolved, a comment after it dropped. */
function plainValue(raw: string): string {
  let value = "";
  let quoted = false;
  for (let index = 0; index < raw.length; index++) {
    const char = raw[index]!;
    if (char === '"') quoted = !quoted;
    else if (char === "\\") {
      const next = raw[++index] ?? "";
      value += ({ n: "\n", t: "\t", b: "\b" } as Record<string, string>)[next] ?? next;
    } else if (!quoted && (char === "#" || char === ";")) break;
    else value += char;
  }
  return value.trim();
}

interface ConfigLine {
  text: string;
  /** The section it is in, lower case. */
  section: string;
  /** What comes before the entry on the line: a section header, when one opens it. */
  header: string;
  entry?: { lead: string; key: string; separator: string; value: string };
  /** The line carries on the value of the line before it. */
  continuation: boolean;
}

function* configLines(text: string): Generator<ConfigLine> {
  let section = "";
  let continuing = false;
  for (const line of text.split("\n")) {
    if (continuing) {
      continuing = continues(line);
      yield { text: line, section, header: "", continuation: true };
      continue;
    }
    const opened = SECTION.exec(line);
    if (opened) section = opened[1]!.toLowerCase();
    const header = opened?.[0] ?? "";
    const [, lead = "", key = "", separator = "", value = ""] = ENTRY.exec(line.slice(header.length)) ?? [];
    continuing = key !== "" && continues(line);
    yield {
      text: line,
      section,
      header,
      ...(key ? { entry: { lead, key, separator, value } } : {}),
      continuation: false,
    };
  }
}

/** The value an entry is shown with, when it holds a credential: the redactor's own rule (redact.ts), one for both. */
export function hiddenValue(key: string, raw: string): string | undefined {
  return hiddenSetting(key, plainValue(raw));
}

/**
 * A git config file's text with its credentials taken out: the password or token of every URL
 * (remotes, `url.<base>.insteadOf`, proxies, section names), the value of every extra header
 * that authorizes, and what keys named for a password or token hold. The same text when it holds
 * none: then no copy is needed.
 */
export function redactGitConfig(text: string): string {
  const lines: string[] = [];
  let dropping = false;
  for (const line of configLines(text)) {
    if (line.continuation && dropping) {
      dropping = continues(line.text);
      continue;
    }
    dropping = false;
    const { entry } = line;
    const hidden = entry && hiddenValue(entry.key, entry.value);
    if (entry && hidden !== undefined) {
      // The rest of a value that went on over several lines goes with it.
      dropping = continues(line.text);
      lines.push(`${hideCredentialShapes(line.header)}${entry.lead}${entry.key}${entry.separator}${hidden}`);
    } else {
      lines.push(hideCredentialShapes(line.text));
    }
  }
  return lines.join("\n");
}

/** The files a config includes (`include.path`, `includeIf.<condition>.path`), whatever the condition. */
function includedFiles(text: string, file: string, home: string | undefined): string[] {
  const found: string[] = [];
  for (const { section, entry } of configLines(text)) {
    if (section !== "include" && section !== "includeif") continue;
    if (entry?.key.toLowerCase() !== "path") continue;
    const value = plainValue(entry.value);
    if (!value) continue;
    if (value.startsWith("~/")) {
      if (home) found.push(path.join(home, value.slice(2)));
    } else found.push(path.resolve(path.dirname(file), value));
  }
  return found;
}

/** The config files of the repository a folder is in: its git folder's, and the one its worktrees share. */
function repositoryConfigs(folder: string): string[] {
  const root = repositoryRoot(folder);
  if (!root) return [];
  const dotGit = path.join(root, ".git");
  return statSync(dotGit, { throwIfNoEntry: false })?.isDirectory()
    ? gitDirConfigs(dotGit)
    : linkedConfigs(dotGit);
}

/** A worktree's or a submodule's `.git` file names its git folder: `gitdir: ../.git/worktrees/x`. */
function linkedConfigs(dotGit: string): string[] {
  const target = /^gitdir:\s*(.+?)\s*$/m.exec(readText(dotGit) ?? "")?.[1];
  return target ? gitDirConfigs(path.resolve(path.dirname(dotGit), target)) : [];
}

function gitDirConfigs(gitDir: string): string[] {
  const common = readText(path.join(gitDir, "commondir"))?.trim();
  const shared = common ? path.resolve(gitDir, common) : gitDir;
  return [path.join(shared, "config"), path.join(gitDir, "config.worktree"), ...submoduleConfigs(shared)];
}

/** How deep submodules' git folders are looked for: a name may hold slashes, and submodules nest. */
const MAX_SUBMODULE_DEPTH = 8;

/**
 * The configs of the submodules' git folders (`.git/modules/<name>/config`, and theirs in turn),
 * where `git submodule update` writes the URL a token may be part of.
 */
function submoduleConfigs(gitDir: string): string[] {
  return gitDirsIn(path.join(gitDir, "modules"), 0).map((dir) => path.join(dir, "config"));
}

/** The git folders in `folder`: those with a HEAD, their own submodules', and those deeper down a name with slashes. */
function gitDirsIn(folder: string, depth: number): string[] {
  if (depth >= MAX_SUBMODULE_DEPTH) return [];
  let entries: Dirent[];
  try {
    entries = readdirSync(folder, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => {
      const dir = path.join(folder, entry.name);
      return statSync(path.join(dir, "HEAD"), { throwIfNoEntry: false })?.isFile()
        ? [dir, ...gitDirsIn(path.join(dir, "modules"), depth + 1)]
        : gitDirsIn(dir, depth + 1);
    });
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}

/** The config files git reads, besides those they include: the system's, the person's, each repository's. */
function gitConfigFiles(roots: string[], homes: string[], env: NodeJS.ProcessEnv): string[] {
  const xdg = env.XDG_CONFIG_HOME ? [path.join(env.XDG_CONFIG_HOME, "git", "config")] : [];
  return [
    "/etc/gitconfig",
    ...[env.GIT_CONFIG_SYSTEM, env.GIT_CONFIG_GLOBAL].flatMap((file) => (file ? [file] : [])),
    ...homes.flatMap((home) => [path.join(home, ".gitconfig"), path.join(home, ".config", "git", "config")]),
    ...xdg,
    ...roots.flatMap(repositoryConfigs),
  ];
}

/** A config file as last read: its stamp, the redacted copy when it holds a credential, what it includes. */
interface Seen {
  stamp: string;
  copy?: string;
  includes: string[];
}

/** One copy of a git config file without its credentials, to bind over the original. */
export interface RedactedFile {
  /** Real path of the original. */
  file: string;
  copy: string;
}

/**
 * The redacted copies of a session's git config files, kept in `folder` (out of the commands'
 * sight) and looked at again before each command: a file is read again only when it changed
 * (its inode, size or times), and copied only when it holds a credential.
 */
export function sessionGitConfigs(
  roots: string[],
  homes: string[],
  env: NodeJS.ProcessEnv,
  folder: () => string,
): () => RedactedFile[] {
  const seen = new Map<string, Seen>();
  let copies = 0;
  const look = (file: string): Seen | undefined => {
    const stat = statSync(file, { throwIfNoEntry: false });
    const known = seen.get(file);
    const stamp = stat?.isFile() ? `${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}` : undefined;
    if (known && known.stamp === stamp) return known;
    if (known?.copy) rmSync(known.copy, { force: true });
    seen.delete(file);
    const text = stamp === undefined ? undefined : readText(file);
    if (stamp === undefined || text === undefined) return undefined;
    const entry: Seen = { stamp, includes: includedFiles(text, file, env.HOME) };
    const redacted = redactGitConfig(text);
    if (redacted !== text) {
      // A new name for each version: a command still running keeps the copy it was shown.
      entry.copy = path.join(folder(), `${++copies}-${path.basename(file)}`);
      writeFileSync(entry.copy, redacted, { mode: 0o444 });
    }
    seen.set(file, entry);
    return entry;
  };
  return () => {
    const found = new Map<string, string>();
    let level = gitConfigFiles(roots, homes, env);
    for (let depth = 0; depth <= MAX_INCLUDE_DEPTH && level.length > 0; depth++) {
      const next: string[] = [];
      for (const file of level) {
        const real = realPath(file);
        if (found.has(real)) continue;
        const entry = look(real);
        if (!entry) continue;
        found.set(real, entry.copy ?? "");
        next.push(...entry.includes);
      }
      level = next;
    }
    return [...found].flatMap(([file, copy]) => (copy ? [{ file, copy }] : []));
  };
}
