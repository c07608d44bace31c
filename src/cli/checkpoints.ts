import { clip, renderTable } from "../platform/table.js";
import { CheckpointError, type CheckpointInfo, type Checkpoints, UndoRefused } from "../store/checkpoints.js";
import { localTime } from "../ui/table.js";
import { type CommandIo, usageError } from "./sessions.js";

/** The command did not do what was asked (DESIGN.md: the task did not complete). */
const NOT_DONE = 1;

function fileList(checkpoint: CheckpointInfo): string {
  return checkpoint.files.map((file) => (file.existed ? file.path : `${file.path} (new)`)).join(", ");
}

/** `cairn checkpoints [<session>]`: what `cairn undo` can go back to, newest first. */
export async function checkpointsCommand(
  checkpoints: Checkpoints,
  options: { session?: string; json?: boolean },
  io: CommandIo,
): Promise<number> {
  let list: CheckpointInfo[];
  try {
    list = await checkpoints.list(options.session);
  } catch (error) {
    if (error instanceof CheckpointError) return usageError(io, error.message);
    throw error;
  }
  if (options.json) {
    io.out.write(`${JSON.stringify(list, null, 2)}\n`);
    return 0;
  }
  if (list.length === 0) {
    io.out.write(
      options.session
        ? `No checkpoints for session ${options.session} in this workspace.\n`
        : "No checkpoints in this workspace yet.\n",
    );
    return 0;
  }
  const table = renderTable<CheckpointInfo>(
    [
      { header: "id", cell: (c) => c.id },
      { header: "created", cell: (c) => localTime(c.created_at) },
      { header: "session", cell: (c) => c.session },
      { header: "step", cell: (c) => clip(c.step, 40) },
      { header: "files", cell: (c) => clip(fileList(c), 60) },
    ],
    list,
  );
  io.out.write(`${table}\n`);
  return 0;
}

function refusal(error: UndoRefused): string {
  const width = Math.max(...error.conflicts.map((conflict) => conflict.path.length));
  return [
    `cairn: not undone: ${error.conflicts.length === 1 ? "a file has" : "files have"} changed since cairn left ${error.conflicts.length === 1 ? "it" : "them"}, and undoing would throw that work away:`,
    ...error.conflicts.map((conflict) => `  ${conflict.path.padEnd(width)}  ${conflict.reason}`),
    `Nothing was changed. Look at ${error.conflicts.length === 1 ? "it" : "them"} first; \`cairn undo ${error.checkpoint.id} --force\` restores the checkpoint anyway.`,
  ].join("\n");
}

/** `cairn undo [<checkpoint>] [--force]`: the workspace's files as they were before that step. */
export async function undoCommand(
  checkpoints: Checkpoints,
  options: { checkpoint?: string; force?: boolean },
  io: CommandIo,
): Promise<number> {
  if (options.checkpoint === undefined && (await checkpoints.list()).length === 0) {
    io.err.write(`cairn: nothing to undo: no checkpoints in ${checkpoints.workspace}.\n`);
    return NOT_DONE;
  }
  try {
    const { checkpoint, undone, files } = await checkpoints.undo(options.checkpoint, {
      force: options.force ?? false,
    });
    const later = undone.length - 1;
    io.out.write(
      `Undid checkpoint ${checkpoint.id} ("${clip(checkpoint.step, 60)}", ${localTime(checkpoint.created_at)}) of session ${checkpoint.session}` +
        `${later > 0 ? ` and the ${later} later one(s)` : ""}.\n`,
    );
    const changed = files.filter((file) => file.action !== "unchanged");
    for (const file of changed) io.out.write(`  ${file.action.padEnd(8)}  ${file.path}\n`);
    const unchanged = files.length - changed.length;
    if (unchanged > 0) io.out.write(`  (${unchanged} file(s) were already as before)\n`);
    return 0;
  } catch (error) {
    if (error instanceof UndoRefused) {
      io.err.write(`${refusal(error)}\n`);
      return NOT_DONE;
    }
    if (error instanceof CheckpointError) return usageError(io, error.message);
    throw error;
  }
}
