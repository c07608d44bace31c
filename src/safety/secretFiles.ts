import { closeSync, openSync, readSync, statSync } from "node:fs";
import path from "node:path";
import picomatch from "picomatch";
import { isInside } from "../platform/text.js";

/**
 * File names that say a file holds secrets (docs/security.md, "Secret files"), as globs on the
 * name, in any case. Templates of a `.env` are committed to be read, and public keys are public.
 */
export const SECRET_FILE_NAMES = [
  ".env",
  ".env.*",
  ".envrc",
  "*.{pem,key,p12,pfx,jks,keystore}",
  "id_{rsa,dsa,ecdsa,ed25519}*",
  "credentials",
  "credentials*.json",
  "*.tfvars",
  "*.tfvars.json",
  "*.tfstate",
  "*.tfstate.backup",
  // Data and config, not code: `secrets.ts` or `secrets.test.py` is a program about secrets.
  "secrets",
  "secrets.{yml,yaml,json,toml,env,ini,cfg,conf,properties,xml,txt,enc}",
  ".git-credentials",
  ".pgpass",
  ".htpasswd",
  // Secret only when they hold a credential (CREDENTIAL_FILES).
  ".npmrc",
  ".pypirc",
  ".netrc",
  "_netrc",
];
/**
 * Git pathspecs that match at least every name SECRET_FILE_NAMES does, in any folder and any case,
 * for git to pick the secret files out of a big repository; what they match is then judged by
 * hasSecretName. Few and broad on purpose: git tries each pathspec on each file, and a
 * `:(glob,icase)` one for each name (38 of them) takes longer than listing every file. Without
 * `glob`, `*` also matches `/` and nothing, so `*.env*` matches `.env` and `a/b/.env.local`.
 */
export const SECRET_NAME_PATHSPECS: readonly string[] = [
  "*.env*",
  "*.pem",
  "*.key",
  "*.p12",
  "*.pfx",
  "*.jks",
  "*.keystore",
  "*id_*",
  "*credentials*",
  "*.tfvars*",
  "*.tfstate*",
  "*secrets*",
  "*.pgpass",
  "*.htpasswd",
  "*.npmrc",
  "*.pypirc",
  "*netrc",
].map((pattern) => `:(icase)${pattern}`);
const NOT_SECRET_NAMES = [".env.{example,sample,template}", ".env.*.{example,sample,template}", "*.pub"];
/**
 * Globs on a name as one regular expression, in any case. picomatch's matcher for a list tries
 * each glob in turn through its own bookkeeping (a microsecond a name here); every file a tool
 * names, lists or searches is judged, so the list is one expression of picomatch's own (0.1 µs).
 */
function namesPattern(globs: readonly string[]): RegExp {
  const each = globs.map((glob) => `(?:${picomatch.makeRe(glob, { dot: true, nocase: true }).source})`);
  return new RegExp(each.join("|"), "i");
}
const SECRET_NAME = namesPattern(SECRET_FILE_NAMES);
const NOT_SECRET_NAME = namesPattern(NOT_SECRET_NAMES);

/** Configuration files that are secret only when they hold a credential, not a reference to one. */
const CREDENTIAL_FILES = new Set([".npmrc", ".pypirc", ".netrc", "_netrc"]);
/** `_authToken=…`, `_auth = …`, `password …`, with a value that is not `${NPM_TOKEN}`. */
const HOLDS_CREDENTIAL = /(?:^|[\s:])_?(?:authToken|auth|password)\s*[=:\s]\s*(?!\$)\S/im;
/** Enough of such a file to find its credentials: they are small. */
const CREDENTIAL_SCAN_BYTES = 64 * 1024;

/** Whether a file's name alone says it may hold secrets (an `.npmrc` only when it does, see SecretFiles). */
export function hasSecretName(file: string): boolean {
  const name = path.basename(file);
  return SECRET_NAME.test(name) && !NOT_SECRET_NAME.test(name);
}

function holdsCredential(file: string): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(file, "r");
    const buffer = Buffer.alloc(CREDENTIAL_SCAN_BYTES);
    const length = readSync(fd, buffer, 0, buffer.length, 0);
    return HOLDS_CREDENTIAL.test(buffer.toString("utf8", 0, length));
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** A credential store of the machine (`~/.aws`, `~/.ssh`), by real path, with files inside it that stay visible. */
export interface CredentialStore {
  path: string;
  keep: readonly string[];
}

/**
 * What the sandbox keeps of the machine's credentials from commands (sandboxMasks.ts), which the
 * file tools keep from the model the same way, by real path: a file in a credential store is a
 * secret file, and a git config file that holds a credential is read as its copy without it.
 */
export interface MachineCredentials {
  stores(): readonly CredentialStore[];
  /** git's config files that hold a credential (real paths), each with the copy without it they are shown as. */
  redacted(): ReadonlyMap<string, string>;
}

/**
 * Which files look like secrets: by name (`.env`, `*.pem`, `id_rsa`, …) or, for `.npmrc`,
 * `.pypirc` and `.netrc`, by holding a credential; except those config `files.allow_secrets`
 * lists (workspace paths or globs, or absolute paths). Reading one is asked about (permission
 * class `secret`); grep and the listings leave them out.
 */
export class SecretFiles {
  private readonly workspace: string;
  private readonly allow: string[];
  /** The files (absolute paths) a person let one call read. */
  readonly approved: ReadonlySet<string>;
  private readonly allowed: (relative: string) => boolean;
  private readonly machine: MachineCredentials | undefined;

  constructor(
    workspace: string,
    allow: string[] = [],
    approved: ReadonlySet<string> = new Set(),
    machine?: MachineCredentials,
  ) {
    this.workspace = workspace;
    this.allow = allow;
    this.approved = approved;
    this.allowed = allow.length > 0 ? picomatch(allow, { dot: true }) : () => false;
    this.machine = machine;
  }

  /** The same, with these absolute paths allowed too: the files a person let one call read. */
  allowing(absolutes: string[]): SecretFiles {
    return new SecretFiles(
      this.workspace,
      this.allow,
      new Set([...this.approved, ...absolutes]),
      this.machine,
    );
  }

  /**
   * Whether the file at this absolute path exists and looks like a secret that is not allowed:
   * by its name or what it holds, or, as the sandbox hides it, by lying in one of the machine's
   * credential stores (`~/.aws/config`, `~/.kube/config`), reached through a workspace that holds
   * the home folder.
   */
  isSecret(absolute: string): boolean {
    if (!hasSecretName(absolute)) return this.inStore(absolute) && !this.isAllowed(absolute);
    if (this.isAllowed(absolute)) return false;
    if (!statSync(absolute, { throwIfNoEntry: false })?.isFile()) return false;
    return !CREDENTIAL_FILES.has(path.basename(absolute)) || holdsCredential(absolute);
  }

  private inStore(absolute: string): boolean {
    const within = (folder: string) => absolute === folder || isInside(folder, absolute);
    const store = this.machine?.stores().find((candidate) => within(candidate.path));
    return (
      store !== undefined &&
      !store.keep.some(within) &&
      Boolean(statSync(absolute, { throwIfNoEntry: false })?.isFile())
    );
  }

  /**
   * The file a tool reads for `absolute` (a real path): the copy without credentials of a git
   * config file that holds some, as commands see it in the sandbox, unless the person allowed
   * that file; else the file itself.
   */
  shown(absolute: string): string {
    if (!this.machine || this.isAllowed(absolute)) return absolute;
    return this.machine.redacted().get(absolute) ?? absolute;
  }

  /** Every file `shown` reads as a copy, with that copy: for a search that looks through many at once. */
  shownCopies(): ReadonlyMap<string, string> {
    const redacted = this.machine?.redacted() ?? new Map<string, string>();
    return new Map([...redacted].filter(([file]) => !this.isAllowed(file)));
  }

  /** As isSecret, but a file that is gone (a diff of its deletion) is judged by its name alone. */
  isOrWasSecret(absolute: string): boolean {
    if (statSync(absolute, { throwIfNoEntry: false })) return this.isSecret(absolute);
    return hasSecretName(absolute) && !this.isAllowed(absolute);
  }

  isAllowed(absolute: string): boolean {
    if (this.approved.has(absolute)) return true;
    const shown = isInside(this.workspace, absolute)
      ? path.relative(this.workspace, absolute).split(path.sep).join("/")
      : absolute;
    return this.allowed(shown) || this.allowed(absolute);
  }
}
