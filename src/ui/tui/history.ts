import { createHash } from "node:crypto";
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

/** Prompts kept per workspace; the file is cut back to these when it has grown to twice as many. */
const KEEP = 1000;

/** The file of a workspace's prompt history under cairn's data folder. */
export function historyFile(dataDir: string, workspace: string): string {
  const key = createHash("sha256").update(workspace).digest("hex").slice(0, 16);
  return path.join(dataDir, "history", `${key}.jsonl`);
}

/**
 * What was typed at the prompt in a workspace, oldest first, kept across runs as JSON lines
 * (one `{text, ts}` a prompt) so two cairn windows on one folder can both append to it.
 */
export class PromptHistory {
  readonly entries: string[];
  private readonly file: string | undefined;

  constructor(entries: string[] = [], file?: string) {
    this.entries = entries;
    this.file = file;
  }

  static load(file: string): PromptHistory {
    let lines: string[] = [];
    try {
      lines = readFileSync(file, "utf8").split("\n").filter(Boolean);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
    const entries = lines.flatMap((line) => {
      try {
        const text = (JSON.parse(line) as { text?: unknown }).text;
        return typeof text === "string" ? [text] : [];
      } catch {
        // A line cut short by a crash mid-write loses that prompt, not the history.
        return [];
      }
    });
    if (lines.length > 2 * KEEP) writeFileSync(file, `${lines.slice(-KEEP).join("\n")}\n`);
    return new PromptHistory(entries.slice(-KEEP), file);
  }

  add(text: string): void {
    if (!text.trim() || this.entries.at(-1) === text) return;
    this.entries.push(text);
    if (!this.file) return;
    mkdirSync(path.dirname(this.file), { recursive: true });
    appendFileSync(this.file, `${JSON.stringify({ text, ts: new Date().toISOString() })}\n`);
  }
}
