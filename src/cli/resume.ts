import { existsSync, realpathSync } from "node:fs";
import path from "node:path";
import { StoreError, storePath } from "../store/db.js";
import { Store } from "../store/sessions.js";
import type { CommonOptions } from "./options.js";
import { runWithRenderer } from "./runSession.js";
import { flagsFrom } from "./task.js";

export interface ResumeOptions extends CommonOptions {
  last?: boolean;
}

/** Finds the session to continue: the one named, or with --last the newest in this folder. */
function findSession(store: Store, ref: string | undefined, options: ResumeOptions) {
  if (ref) return store.requireSession(ref);
  if (!options.last)
    throw new StoreError("name the session to resume, or pass --last; `cairn sessions` lists them.");
  const workspace = realpathSync(path.resolve(options.cwd ?? process.cwd()));
  const session = store.lastSession(workspace);
  if (!session) {
    throw new StoreError(
      `there is no session in ${workspace} to resume; \`cairn sessions\` lists them all, and \`cairn resume <id>\` continues one from anywhere.`,
    );
  }
  return session;
}

/**
 * `cairn resume <id>` / `cairn resume --last` / `cairn run --resume <id>`: continues an
 * interrupted session where its event log ends, in its own workspace, with its own model unless
 * --model says otherwise.
 */
export async function resumeCommand(ref: string | undefined, options: ResumeOptions): Promise<number> {
  const store = Store.open(storePath());
  let found: ReturnType<typeof findSession>;
  let events: ReturnType<Store["events"]>;
  try {
    found = findSession(store, ref, options);
    events = store.events(found.id);
  } finally {
    store.close();
  }
  // A batch's task is recorded under its repository but worked in a copy of it: it goes on there.
  const started = events.find((event) => event.type === "session.started");
  const workedIn = (started && "worked_in" in started && started.worked_in) || found.workspace;
  if (!existsSync(workedIn)) {
    throw new StoreError(
      workedIn === found.workspace
        ? `session ${found.id} ran in ${found.workspace}, which no longer exists; it can be resumed only there.`
        : `session ${found.id} ran in a batch's copy of ${found.workspace} (${workedIn}), which no longer exists; it can be resumed only there.`,
    );
  }
  // A conversation can always be continued: in the terminal UI, where it happened.
  if (found.mode === "chat") {
    const { interactiveCommand } = await import("./interactive.js");
    return interactiveCommand({ ...options, cwd: workedIn }, { resume: found.id });
  }
  if (found.status === "completed") {
    throw new StoreError(`session ${found.id} already completed; there is nothing to resume.`);
  }
  return runWithRenderer({
    cwd: workedIn,
    flags: { ...flagsFrom(options), model: options.model ?? found.model },
    mode: found.mode,
    options,
    run: (conversation) => conversation.submit({ type: "resume", session_id: found.id }),
  });
}
