import { createHash } from "node:crypto";
import type { DatabaseSync } from "node:sqlite";
import { patiently } from "../../store/db.js";
import type { MinedCommit, MiningSettings } from "./types.js";

/**
 * Bumped when mining would find something else for the same commit and settings (a runner read
 * differently, a new reason): what was cached before is mined again.
 */
const MINER_VERSION = 1;

/** The key of the settings a commit was mined with: the same commit mined another way is mined again. */
export function settingsKey(settings: MiningSettings, setup: string | undefined): string {
  const { testCommand, buildCommand } = settings;
  const key = JSON.stringify({ version: MINER_VERSION, testCommand, buildCommand, setup });
  return createHash("sha256").update(key).digest("hex").slice(0, 24);
}

/** What mining found for each commit, kept in the store (`mined_commits`) between runs. */
export class MinedCache {
  private readonly db: DatabaseSync;
  private readonly settings: string;

  constructor(db: DatabaseSync, settings: string) {
    this.db = db;
    this.settings = settings;
  }

  /** The commits of `shas` already mined with these settings. */
  get(shas: readonly string[]): Map<string, MinedCommit> {
    const found = new Map<string, MinedCommit>();
    const select = this.db.prepare("SELECT found FROM mined_commits WHERE sha = ? AND settings = ?");
    for (const sha of shas) {
      const row = select.get(sha, this.settings);
      if (row) found.set(sha, JSON.parse(String(row.found)) as MinedCommit);
    }
    return found;
  }

  put(mined: MinedCommit): void {
    patiently(() =>
      this.db
        .prepare("INSERT OR REPLACE INTO mined_commits (sha, settings, found, mined_at) VALUES (?, ?, ?, ?)")
        .run(mined.sha, this.settings, JSON.stringify(mined), new Date().toISOString()),
    );
  }
}
