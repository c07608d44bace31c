import type { Checkpoints } from "../../store/checkpoints.js";
import type { Store } from "../../store/sessions.js";
import type { ChatStart } from "../interactive.js";
import type { CommonOptions } from "../options.js";

/**
 * What `cairn do`, `run` and `-p` run on. The sandbox probe (a trial run of bwrap) starts first,
 * so that it runs on the other core while the session's modules load.
 */
export async function loadTask() {
  void (await import("../../safety/sandbox.js")).detectSandboxSoon();
  const [{ taskCommand }, { taskWithInput }] = await Promise.all([
    import("../task.js"),
    import("../stdin.js"),
  ]);
  return { taskCommand, taskWithInput };
}

/**
 * The terminal UI (`cairn`, `cairn chat`). The keyboard leaves the terminal's line mode before the
 * UI loads rather than once it is up, so what is typed meanwhile waits as keys (an Enter as an
 * Enter, not as a line feed) for the UI to take. Node puts the terminal back as it was when cairn
 * exits.
 */
export async function openTerminalUi(options: CommonOptions, start?: ChatStart): Promise<number> {
  if (process.stdin.isTTY && process.stdout.isTTY) process.stdin.setRawMode(true);
  const { interactiveCommand } = await import("../interactive.js");
  return interactiveCommand(options, start);
}

/** Runs a command over the session store, closed afterwards whatever happens. */
export async function withStore(command: (store: Store) => number): Promise<number> {
  const [{ Store }, { storePath }] = await Promise.all([
    import("../../store/sessions.js"),
    import("../../store/db.js"),
  ]);
  const store = Store.open(storePath());
  try {
    return command(store);
  } finally {
    store.close();
  }
}

/** The checkpoints of a workspace (`cairn checkpoints`, `cairn undo`). */
export async function openCheckpoints(cwd: string | undefined): Promise<Checkpoints> {
  const [{ Checkpoints }, { dataDir }] = await Promise.all([
    import("../../store/checkpoints.js"),
    import("../../config/load.js"),
  ]);
  return Checkpoints.open(cwd ?? process.cwd(), { dataDir: dataDir() });
}
