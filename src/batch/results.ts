import { appendFile, mkdir, readFile } from "node:fs/promises";
import path from "node:path";
import { writeFileAtomic } from "../platform/atomicFile.js";
import { ConfigError } from "../platform/errors.js";
import { succeeded, type TaskRecord, tried } from "./record.js";
import { type TaskSpec, taskKey } from "./spec.js";
import { type BatchSummary, summaryMarkdown } from "./summary.js";

export const RESULTS_FILE = "results.jsonl";

/**
 * The `--out` folder of a batch: `results.jsonl` (one record per task, appended as each
 * finishes, so a batch that dies keeps what it finished), `summary.md` and `summary.json`.
 * Read back on the next run of the same batch to skip what is already done.
 */
export class ResultsFolder {
  private readonly byKey = new Map<string, TaskRecord>();
  private writes = Promise.resolve();

  readonly dir: string;

  private constructor(dir: string) {
    this.dir = dir;
  }

  static async open(dir: string): Promise<ResultsFolder> {
    const folder = new ResultsFolder(dir);
    await mkdir(dir, { recursive: true });
    let text = "";
    try {
      text = await readFile(folder.file, "utf8");
    } catch {
      return folder;
    }
    for (const [i, line] of text.split("\n").entries()) {
      if (!line.trim()) continue;
      try {
        const record = JSON.parse(line) as TaskRecord;
        folder.byKey.set(record.key, record);
      } catch {
        throw new ConfigError(
          `${folder.file} line ${i + 1} is not a result (broken JSON). Fix or delete that line, or use another --out folder.`,
        );
      }
    }
    return folder;
  }

  get file(): string {
    return path.join(this.dir, RESULTS_FILE);
  }

  /**
   * A task already finished is not run again; with `retryFailed`, one that did not complete is;
   * one that never got a fair try (no key, a provider failing) always is.
   */
  needsRun(spec: TaskSpec, retryFailed: boolean): boolean {
    const done = this.byKey.get(taskKey(spec));
    return !done || !tried(done) || (retryFailed && !succeeded(done));
  }

  /** Records as they stand, the latest for each task. */
  records(): TaskRecord[] {
    return [...this.byKey.values()];
  }

  /** Adds a finished task's record at once, so it survives the batch being killed. */
  add(record: TaskRecord): Promise<void> {
    this.byKey.set(record.key, record);
    this.writes = this.writes.then(() => appendFile(this.file, `${JSON.stringify(record)}\n`));
    return this.writes;
  }

  /**
   * Rewrites the results with one line per task (a retried task's newer record replaces the old
   * one) and writes the summary beside them.
   */
  async finish(summary: BatchSummary): Promise<void> {
    await this.writes;
    const records = this.records();
    const lines = records.map((record) => `${JSON.stringify(record)}\n`).join("");
    await writeFileAtomic(this.file, Buffer.from(lines));
    await writeFileAtomic(
      path.join(this.dir, "summary.json"),
      Buffer.from(`${JSON.stringify(summary, null, 2)}\n`),
    );
    await writeFileAtomic(
      path.join(this.dir, "summary.md"),
      Buffer.from(`${summaryMarkdown(summary, records)}\n`),
    );
  }
}
