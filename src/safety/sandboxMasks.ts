import { readdirSync, realpathSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { credentialsFile } from "../config/credentials.js";
import { isInside } from "../platform/text.js";
import { type RedactedFile, sessionGitConfigs } from "./gitConfigCredentials.js";
import { secretsBelow } from "./secretCommands.js";
import { type CredentialStore, type MachineCredentials, SecretFiles } from "./secretFiles.js";

/**
 * What the sandbox hides from the commands it runs, whatever they name or however they build a
 * name at run time (docs/security.md#sandbox): the workspace's files that look like secrets, and
 * the machine's own credentials. A file is seen empty, a folder empty; both read-only.
 */
export interface Masks {
  /** Real absolute paths of files and folders to hide. */
  hide: string[];
  /** Files inside a hidden folder shown as they are: what keeps `git fetch` over ssh working, what a person let a call read. */
  expose: string[];
  /** git config files that hold a credential, each shown as a copy without it (gitConfigCredentials.ts). */
  redacted: RedactedFile[];
}

/**
 * Credential stores under a home folder. Folders hide whole except what `keep` names: ssh's
 * `known_hosts` and `config` hold no secret, and without them git over ssh (through the agent's
 * socket) cannot check the host.
 */
const HOME_SECRETS: Array<{ path: string; keep?: string[]; onlyWithCredential?: boolean }> = [
  { path: ".ssh", keep: ["known_hosts", "known_hosts2", "config"] },
  { path: ".aws" },
  { path: ".azure" },
  { path: ".config/gcloud" },
  { path: ".kube" },
  { path: ".docker/config.json" },
  { path: ".gnupg" },
  { path: ".password-store" },
  { path: ".local/share/keyrings" },
  { path: ".netrc" },
  { path: "_netrc" },
  { path: ".git-credentials" },
  { path: ".config/git/credentials" },
  { path: ".config/gh/hosts.yml" },
  { path: ".config/hub" },
  { path: ".pgpass" },
  { path: ".my.cnf" },
  { path: ".vault-token" },
  { path: ".terraform.d/credentials.tfrc.json" },
  { path: ".cargo/credentials" },
  { path: ".cargo/credentials.toml" },
  { path: ".gem/credentials" },
  // cairn's own: the keys `cairn auth login` stored, where they are unless XDG_DATA_HOME says otherwise.
  { path: ".local/share/cairn/credentials.json" },
  // Registries' settings: hidden only when they hold a token, not when they only point at a registry.
  { path: ".npmrc", onlyWithCredential: true },
  { path: ".pypirc", onlyWithCredential: true },
];

/** Readable by root alone on the host, and by root in the sandbox too, which cap-drop does not stop. */
const SYSTEM_SECRETS = ["/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-"];

/** Entries of the workspace looked through for secret files, once a session. */
const SCAN_LIMIT = 50_000;

function real(file: string): string | undefined {
  try {
    return realpathSync(file);
  } catch {
    return undefined;
  }
}

/** The host's ssh keys (`/etc/ssh/ssh_host_*_key`), readable by root. */
function hostKeys(): string[] {
  try {
    return readdirSync("/etc/ssh")
      .filter((name) => /^ssh_host_.*_key$/.test(name))
      .map((name) => path.join("/etc/ssh", name));
  } catch {
    return [];
  }
}

/** The person's home as cairn runs with it, and the account's own when HOME points elsewhere. */
function homes(env: NodeJS.ProcessEnv): string[] {
  const account = (() => {
    try {
      return os.userInfo().homedir;
    } catch {
      return undefined;
    }
  })();
  return [...new Set([env.HOME, account].flatMap((home) => (home ? (real(home) ?? []) : [])))];
}

const credentialCheck = new SecretFiles("/");

/** The machine's credential stores that exist (cairn's stored keys among them), with what each keeps visible. */
function hostSecrets(env: NodeJS.ProcessEnv): CredentialStore[] {
  const found: CredentialStore[] = [];
  for (const home of homes(env)) {
    for (const entry of HOME_SECRETS) {
      const target = real(path.join(home, entry.path));
      if (!target) continue;
      if (entry.onlyWithCredential && !credentialCheck.isSecret(target)) continue;
      found.push({ path: target, keep: (entry.keep ?? []).map((name) => path.join(target, name)) });
    }
  }
  for (const file of [credentialsFile(env), ...SYSTEM_SECRETS, ...hostKeys()]) {
    const target = real(file);
    if (target && !found.some((entry) => entry.path === target)) found.push({ path: target, keep: [] });
  }
  return found;
}

/** A session's view of the machine's credentials, which its sandbox and its file tools share. */
export interface SessionCredentials extends MachineCredentials {
  /** git's config files that hold a credential, each with its copy without it, looked at again on each call. */
  gitConfigs(): RedactedFile[];
}

/**
 * What of the machine's credentials a session keeps from the model, the one rule for commands
 * and file tools alike: its credential stores (found once), and git's config files that hold a
 * credential, looked at again on each use, their copies without it kept in `scratch`, a folder
 * the commands cannot see.
 */
export function sessionCredentials(
  roots: string[],
  env: NodeJS.ProcessEnv,
  scratch: () => string,
): SessionCredentials {
  let stores: CredentialStore[] | undefined;
  const gitConfigs = sessionGitConfigs(roots, homes(env), env, scratch);
  return {
    stores: () => {
      stores ??= hostSecrets(env);
      return stores;
    },
    gitConfigs,
    redacted: () => new Map(gitConfigs().map((entry) => [entry.file, entry.copy])),
  };
}

/**
 * The masks of one session's commands, the workspace scanned once (on the first command): a
 * secret file made later was made by the session itself. Each call's masks leave out what the
 * person let that call read, and what config `files.allow_secrets` allows.
 */
export function sessionMasks(
  roots: string[],
  credentials: SessionCredentials,
): (secrets: SecretFiles | undefined) => Masks {
  let scanned: { files: string[]; host: readonly CredentialStore[] } | undefined;
  return (secrets) => {
    scanned ??= {
      files: secretsBelow(roots, true, new SecretFiles(roots[0] ?? "/"), SCAN_LIMIT),
      host: credentials.stores(),
    };
    const allowed = (file: string) => secrets?.isAllowed(file) ?? false;
    const hide = [
      ...scanned.files.filter(
        (file) => statSync(file, { throwIfNoEntry: false })?.isFile() && !allowed(file),
      ),
      ...scanned.host.filter((entry) => !allowed(entry.path)).map((entry) => entry.path),
    ];
    const approved = [...(secrets?.approved ?? [])];
    const expose = scanned.host.flatMap((entry) =>
      hide.includes(entry.path)
        ? [
            ...entry.keep,
            ...approved.filter((file) => file !== entry.path && isInside(entry.path, file)),
          ].filter((file) => statSync(file, { throwIfNoEntry: false })?.isFile())
        : [],
    );
    return { hide, expose, redacted: credentials.gitConfigs().filter((entry) => !allowed(entry.file)) };
  };
}
