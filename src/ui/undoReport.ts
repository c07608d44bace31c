import { clip } from "../platform/table.js";
import { CheckpointError, type Checkpoints, UndoRefused } from "../store/checkpoints.js";
import { localTime } from "./table.js";

/** What undoing came to, said for a person: `cairn undo` prints it, the chats show it. */
export interface UndoReport {
  /** DESIGN.md's exit codes: 0 undone, 1 nothing undone (nothing to, or it would lose work), 2 a wrong id. */
  code: 0 | 1 | 2;
  /** The checkpoints undone and the files put back; or why nothing was. */
  text: string;
}

function refusal(error: UndoRefused): string {
  const one = error.conflicts.length === 1;
  const width = Math.max(...error.conflicts.map((conflict) => conflict.path.length));
  return [
    `not undone: ${one ? "a file has" : "files have"} changed since cairn left ${one ? "it" : "them"}, and undoing would throw that work away:`,
    ...error.conflicts.map((conflict) => `  ${conflict.path.padEnd(width)}  ${conflict.reason}`),
    `Nothing was changed. Look at ${one ? "it" : "them"} first; \`cairn undo ${error.checkpoint.id} --force\` restores the checkpoint anyway.`,
  ].join("\n");
}

/** Puts the workspace's files back as they were before a checkpoint (default: the latest), and says how it went. */
export async function undoChanges(
  checkpoints: Checkpoints,
  options: { checkpoint?: string; force?: boolean },
): Promise<UndoReport> {
  if (options.checkpoint === undefined && (await checkpoints.list()).length === 0) {
    return { code: 1, text: `nothing to undo: no checkpoints in ${checkpoints.workspace}.` };
  }
  try {
    const { checkpoint, undone, files } = await checkpoints.undo(options.checkpoint, {
      force: options.force ?? false,
    });
    const later = undone.length - 1;
    const lines = [
      `Undid checkpoint ${checkpoint.id} ("${clip(checkpoint.step, 60)}", ${localTime(checkpoint.created_at)}) of session ${checkpoint.session}` +
        `${later > 0 ? ` and the ${later} later one(s)` : ""}.`,
    ];
    const changed = files.filter((file) => file.action !== "unchanged");
    for (const file of changed) lines.push(`  ${file.action.padEnd(8)}  ${file.path}`);
    const unchanged = files.length - changed.length;
    if (unchanged > 0) lines.push(`  (${unchanged} file(s) were already as before)`);
    return { code: 0, text: lines.join("\n") };
  } catch (error) {
    if (error instanceof UndoRefused) return { code: 1, text: refusal(error) };
    if (error instanceof CheckpointError) return { code: 2, text: error.message };
    throw error;
  }
}
