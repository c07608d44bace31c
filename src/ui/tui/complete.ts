import { scopeFor, walkFiles } from "../../tools/workspaceFiles.js";

/** Files listed for `@` completion, at most: enough for any project one would type paths in. */
const MAX_FILES = 20_000;
/** A listing older than this is walked again, so files the agent just made can be mentioned. */
const STALE_MS = 5_000;
export const MAX_SUGGESTIONS = 6;

export interface Suggestion {
  /** What replaces the word being typed. */
  value: string;
  /** What the menu shows beside it. */
  hint?: string;
  /** Choosing it sends the prompt at once: a command that takes no argument. */
  submit?: boolean;
}

/**
 * Candidates for `@path`: paths containing what was typed, those whose file name starts with it
 * first, then shorter ones.
 */
export function rankPaths(query: string, files: readonly string[], max = MAX_SUGGESTIONS): string[] {
  const q = query.toLowerCase();
  const scored: Array<{ file: string; score: number }> = [];
  for (const file of files) {
    const lower = file.toLowerCase();
    const at = lower.indexOf(q);
    if (at === -1) continue;
    const base = lower.slice(lower.lastIndexOf("/") + 1);
    const score = (lower.startsWith(q) ? 0 : base.startsWith(q) ? 1 : 2) * 10_000 + file.length;
    scored.push({ file, score });
  }
  return scored
    .sort((a, b) => a.score - b.score || a.file.localeCompare(b.file))
    .slice(0, max)
    .map((s) => s.file);
}

/** The workspace's files as `.gitignore` and the tools see them, walked on demand. */
export class WorkspaceFileList {
  private readonly workspace: string;
  private files: string[] = [];
  private listedAt = 0;
  private walking: Promise<void> | undefined;

  constructor(workspace: string) {
    this.workspace = workspace;
  }

  /** The last listing at once; a fresh one is started when it is stale and `onFresh` is told. */
  current(onFresh: () => void): string[] {
    if (Date.now() - this.listedAt > STALE_MS && !this.walking) {
      this.walking = this.walk()
        .then(onFresh, () => {
          // An unreadable workspace offers no completions rather than retrying on every key.
          this.listedAt = Date.now();
        })
        .finally(() => {
          this.walking = undefined;
        });
    }
    return this.files;
  }

  private async walk(): Promise<void> {
    const scope = await scopeFor({ workspace: this.workspace, extraRoots: [] });
    const files: string[] = [];
    for await (const entry of walkFiles(scope)) {
      files.push(entry.path);
      if (files.length >= MAX_FILES) break;
    }
    this.files = files;
    this.listedAt = Date.now();
  }
}
