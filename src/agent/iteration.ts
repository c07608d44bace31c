import type { StampedEvent } from "../events/types.js";
import type { Review } from "./schemas.js";

/**
 * What one round of the run hands the next (the Rust seed's IterationContext): so the model
 * changes files it already made instead of making them again, and fixes what the last round
 * found instead of repeating it.
 */
export class IterationContext {
  readonly filesCreated = new Set<string>();
  readonly filesModified = new Set<string>();
  /** Where a moved or copied entry came from, by where it is now; deleted files. */
  readonly movedFrom = new Map<string, string>();
  readonly copiedFrom = new Map<string, string>();
  readonly filesDeleted = new Set<string>();
  /** Per file, the diffs of this run's edits in order: what the reviewer reads. */
  readonly diffs = new Map<string, string[]>();
  /**
   * Files and line ranges touched since the last validation: where mutation repair looks. A file
   * whose diff the event carried cut (over 64 KiB) has no ranges: its middle hunks are unknown, so
   * the whole file is looked at.
   */
  readonly recentRanges = new Map<string, Array<{ start: number; end: number }> | undefined>();
  lastReview: Review | undefined;
  pendingIssues: string[] = [];
  readonly progress: string[] = [];
  /** What each deterministic repair tried and found: in the progress the next plan reads, and in the report. */
  readonly repairs: string[] = [];

  /** Reads edits out of the event stream: the tools report each change's path and diff. */
  observe = (event: StampedEvent): void => {
    if (event.type !== "tool.result" || !event.ok || !event.data) return;
    const { data } = event;
    if (data.kind === "file_moved" || data.kind === "file_copied" || data.kind === "file_deleted") {
      this.relocated(data);
      return;
    }
    if (data.kind !== "file_change") return;
    const file = data.path;
    if (data.created === true && !this.filesModified.has(file)) this.filesCreated.add(file);
    else if (!this.filesCreated.has(file)) this.filesModified.add(file);
    this.diffs.set(file, [...(this.diffs.get(file) ?? []), data.diff]);
    const ranges = this.recentRanges.has(file) ? this.recentRanges.get(file) : [];
    if (!ranges || event.cut?.some((cut) => cut.field === "data.diff")) {
      this.recentRanges.set(file, undefined);
      return;
    }
    for (const hunk of data.diff.matchAll(/^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@/gm)) {
      const start = Number(hunk[1]);
      const length = hunk[2] === undefined ? 1 : Number(hunk[2]);
      ranges.push({ start, end: start + Math.max(length, 1) - 1 });
    }
    this.recentRanges.set(file, ranges);
  };

  /** A move, copy or delete: said as one, not as changes to the files it touched. */
  private relocated(
    data:
      | { kind: "file_moved" | "file_copied"; source: string; destination: string }
      | { kind: "file_deleted"; path: string },
  ): void {
    if (data.kind === "file_deleted") {
      this.filesDeleted.add(data.path);
      return;
    }
    const { source, destination } = data;
    this.filesDeleted.delete(destination);
    if (data.kind === "file_copied") {
      this.copiedFrom.set(destination, source);
      return;
    }
    // Moved twice is moved once, from where it first was.
    this.movedFrom.set(destination, this.movedFrom.get(source) ?? source);
    this.movedFrom.delete(source);
  }

  /** How a changed file came to be as it is: created, modified, moved, copied or deleted. */
  changeOf(file: string): string | undefined {
    const moved = this.movedFrom.get(file);
    if (moved) return `moved from \`${moved}\``;
    const copied = this.copiedFrom.get(file);
    if (copied) return `copied from \`${copied}\``;
    if (this.filesDeleted.has(file)) return "deleted";
    if ([...this.movedFrom.values()].includes(file)) return undefined;
    return this.filesCreated.has(file) ? "created" : "modified";
  }

  /** The run's changes so far, for the reviewer, capped so a huge rewrite can't flood it. */
  diffText(maxChars = 24_000): string {
    const text = [...this.diffs.values()].flat().join("\n");
    return text.length > maxChars
      ? `${text.slice(0, maxChars)}\n[... diff cut at ${maxChars} characters]`
      : text;
  }

  render(): string {
    const parts: string[] = [];
    if (this.filesCreated.size) parts.push(`Files created so far: ${[...this.filesCreated].join(", ")}`);
    if (this.filesModified.size) parts.push(`Files modified so far: ${[...this.filesModified].join(", ")}`);
    if (this.movedFrom.size)
      parts.push(`Moved so far: ${[...this.movedFrom].map(([to, from]) => `${from} → ${to}`).join(", ")}`);
    const progress = [...this.progress, ...this.repairs];
    if (progress.length) parts.push(`Progress:\n${progress.map((line) => `- ${line}`).join("\n")}`);
    if (this.lastReview) {
      parts.push(
        `Last review: ${this.lastReview.ready ? "ready" : "not ready"}, quality ${this.lastReview.quality}/10`,
      );
    }
    if (this.pendingIssues.length) {
      parts.push(
        `Pending issues the next changes must fix:\n${this.pendingIssues.map((i) => `- ${i}`).join("\n")}`,
      );
    }
    return parts.length ? `# Where the work stands\n${parts.join("\n\n")}` : "";
  }
}
