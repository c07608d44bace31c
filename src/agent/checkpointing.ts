import type { Checkpoints } from "../store/checkpoints.js";
import type { AnyTool } from "../tools/types.js";

/** The workspace paths a write tool is about to change, from its arguments. */
function pathsChangedBy(tool: string, args: Record<string, unknown>): string[] {
  const named = (key: string) => (typeof args[key] === "string" ? [args[key] as string] : []);
  if (tool === "move_file") return [...named("source"), ...named("destination")];
  if (tool === "copy_file") return named("destination");
  return named("path");
}

/**
 * Wraps a file-writing tool so the prior state of what it changes is snapshotted first, per
 * step, and the new state recorded after: what `cairn undo` restores and checks against.
 * Commands and git are not snapshotted: what they touch is not known before they run.
 */
export function withCheckpoints(
  tool: AnyTool,
  checkpoints: () => Promise<Checkpoints>,
  session: string,
): AnyTool {
  if (tool.permission !== "write" || tool.name.startsWith("git_")) return tool;
  return {
    ...tool,
    async execute(args, ctx) {
      const paths = pathsChangedBy(tool.name, args as Record<string, unknown>);
      if (paths.length === 0) return tool.execute(args, ctx);
      const store = await checkpoints();
      await store.beforeChange(session, ctx.step, paths);
      try {
        return await tool.execute(args, ctx);
      } finally {
        await store.afterChange(session, ctx.step, paths);
      }
    },
  };
}
