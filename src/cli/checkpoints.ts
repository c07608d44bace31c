import { clip, renderTable } from "../platform/table.js";
import { CheckpointError, type CheckpointInfo, type Checkpoints } from "../store/checkpoints.js";
import { localTime } from "../ui/table.js";
import { undoChanges } from "../ui/undoReport.js";
import { type CommandIo, usageError } from "./sessions.js";

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

/** `cairn undo [<checkpoint>] [--force]`: the workspace's files as they were before that step. */
export async function undoCommand(
  checkpoints: Checkpoints,
  options: { checkpoint?: string; force?: boolean },
  io: CommandIo,
): Promise<number> {
  const { code, text } = await undoChanges(checkpoints, options);
  if (code === 0) io.out.write(`${text}\n`);
  else io.err.write(`cairn: ${text}\n`);
  return code;
}
