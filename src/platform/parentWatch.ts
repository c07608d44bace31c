/**
 * Set by whatever starts cairn and wants it gone when it goes, even by SIGKILL, which it cannot
 * pass on (a `cairn worker` for its tasks, the launcher for cairn on a newer Node): how many
 * milliseconds cairn then has to end as Ctrl-C ends it before it exits anyway.
 */
export const EXIT_WITH_PARENT = "CAIRN_EXIT_WITH_PARENT";
/** How often the parent is looked for, at most. */
const WATCH_EVERY_MS = 500;

/**
 * Ends this process once the process that started it is gone (it is then a child of another,
 * which it notices within half a second): first as Ctrl-C would, so a session ends as cancelled
 * and stops its commands, then for good after the grace the variable gives. Nothing when the
 * variable is not set.
 */
export function exitWithParent(env: NodeJS.ProcessEnv = process.env): void {
  const graceMs = Number(env[EXIT_WITH_PARENT]);
  if (!(graceMs > 0)) return;
  const parent = process.ppid;
  const timer = setInterval(
    () => {
      if (process.ppid === parent) return;
      clearInterval(timer);
      setTimeout(() => process.exit(130), graceMs).unref();
      if (process.listenerCount("SIGINT") > 0) process.emit("SIGINT", "SIGINT");
      else process.exit(130);
    },
    Math.min(WATCH_EVERY_MS, graceMs / 2),
  );
  timer.unref();
}
