import { createHash } from "node:crypto";
import { realpathSync } from "node:fs";
import path from "node:path";
import type { EventOf } from "../../events/types.js";
import { canonicalJson } from "../../platform/canonical.js";
import { isInside } from "../../platform/text.js";
import { homeDir } from "../paths.js";
import type { WorkspaceSetting } from "./narrow.js";
import { type Folders, trustFolder } from "./store.js";

/**
 * Whether the person trusts a workspace folder, and what its own files ask for beyond their
 * settings. This is the one decision every part of cairn that reads what a repository carries
 * (its config, `.mcp.json`, agent files, hooks, commands, skills) goes by: while a folder is not
 * trusted, what it carries may narrow what the person allows but never widen it
 * (docs/security.md#trust, docs/development.md#workspace-trust).
 */
export interface WorkspaceTrust {
  /** The folder trust is decided for: the workspace, or for a batch task's copy its repository. */
  folder: string;
  trusted: boolean;
  /** Why it is trusted: `--trust-workspace`, an answer at the prompt, `cairn trust`, the config's `trusted_folders`. */
  by?: TrustSource;
  /** When the person trusted it before, with settings that have changed since (so it is not trusted now). */
  changedSince?: string;
  /** What the workspace asks for beyond the person's own settings: applied when trusted, ignored when not. */
  widening: WorkspaceSetting[];
  /** The hash of `widening`, which an "always" records. */
  hash: string;
}

export type TrustSource = "flag" | "prompt" | "stored" | "config";

/** What a person is asked before a run in a folder that asks for more than they allow. */
export interface TrustQuestion {
  folder: string;
  widening: WorkspaceSetting[];
  changedSince?: string;
}

/** Once: for this run. Always: recorded, until the folder's settings ask for something else. No: narrowed. */
export type TrustAnswer = "once" | "always" | "no";

export type AskTrust = (question: TrustQuestion) => Promise<TrustAnswer>;

/**
 * The hash of what a folder asks for. A list item's place is left out (`rules[3]` is `rules`), so
 * a deny rule added above an allow rule does not make the folder ask again; a new or changed
 * widening setting does.
 */
export function settingsHash(widening: readonly WorkspaceSetting[]): string {
  const entries = widening.map((setting) =>
    canonicalJson([setting.file, setting.key.replace(/\[\d+\]/g, ""), setting.value]),
  );
  return `sha256:${createHash("sha256").update(entries.sort().join("\n")).digest("hex")}`;
}

/** A folder by its real path, as trust is recorded (links followed); as given when it is not there (a URL). */
export function realFolder(folder: string): string {
  try {
    return realpathSync(folder);
  } catch {
    return folder;
  }
}

/** A `trusted_folders` entry as a path: `~/` is the home folder, a relative one is from it. */
function listedFolder(entry: string, env: NodeJS.ProcessEnv): string {
  const home = homeDir(env);
  const expanded = entry === "~" ? home : entry.startsWith("~/") ? path.join(home, entry.slice(2)) : entry;
  return realFolder(path.resolve(home, expanded));
}

/** Whether the person's config lists the folder, or one it is in (a batch's repository URL: exactly). */
export function listedInConfig(
  folder: string,
  trustedFolders: readonly string[],
  env: NodeJS.ProcessEnv,
): boolean {
  return trustedFolders.some(
    (entry) => entry === folder || (path.isAbsolute(folder) && isInside(listedFolder(entry, env), folder)),
  );
}

export interface TrustInputs {
  folder: string;
  widening: WorkspaceSetting[];
  /** `--trust-workspace`, or a batch task the batch file trusts. */
  flag?: boolean;
  /** The person's `trusted_folders`. */
  trustedFolders: readonly string[];
  env: NodeJS.ProcessEnv;
  /** Asks a person; absent headless, where nothing is asked. */
  ask?: AskTrust | undefined;
  /** What the person recorded of each folder (the loader has read it for the folder's rules already). */
  folders: Folders;
}

/**
 * Decides: `--trust-workspace`, then the person's `trusted_folders`, then what `cairn trust` (or
 * an "always") recorded, which holds only while the settings hash as they did; otherwise, when the
 * folder asks for more than the person allows and someone is at the terminal, they are asked.
 */
export async function decideTrust(inputs: TrustInputs): Promise<WorkspaceTrust> {
  const { folder, widening, env } = inputs;
  const hash = settingsHash(widening);
  const base = { folder, widening, hash };
  if (inputs.flag) return { ...base, trusted: true, by: "flag" };
  if (listedInConfig(folder, inputs.trustedFolders, env)) return { ...base, trusted: true, by: "config" };
  const recorded = inputs.folders[folder]?.trusted;
  if (recorded?.hash === hash) return { ...base, trusted: true, by: "stored" };
  const changedSince = recorded ? { changedSince: recorded.at } : {};
  if (widening.length === 0 || !inputs.ask) return { ...base, trusted: false, ...changedSince };
  const answer = await inputs.ask({ folder, widening, ...changedSince });
  if (answer === "no") return { ...base, trusted: false, ...changedSince };
  if (answer === "always") await trustFolder(folder, hash, env);
  return { ...base, trusted: true, by: "prompt" };
}

/** How the person can trust the folder, in one sentence. */
function trustHint(trust: Pick<WorkspaceTrust, "folder" | "changedSince">): string {
  const changed = trust.changedSince ? "its settings changed since you trusted it; " : "";
  return `${changed}to apply them, trust the folder with \`cairn trust ${trust.folder}\`, or pass --trust-workspace for one run`;
}

/** What a session says of its workspace's trust at its start; nothing when the workspace asks for nothing. */
export function trustEvent(trust: WorkspaceTrust | undefined): EventOf<"workspace.trust"> | undefined {
  if (!trust || trust.widening.length === 0) return undefined;
  return {
    type: "workspace.trust",
    folder: trust.folder,
    trusted: trust.trusted,
    ...(trust.by ? { by: trust.by } : {}),
    settings: trust.widening.map(({ file, key, asks }) => ({ file, key, asks })),
    ...(trust.trusted ? {} : { hint: trustHint(trust) }),
  };
}
