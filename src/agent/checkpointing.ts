import type { Checkpoints } from "../store/checkpoints.js";
import type { AnyTool } from "../tools/types.js";

/**
 * Wraps a tool that writes or runs something so the prior state of what it changes is
 * snapshotted first, per step, and the new state recorded after: what `cairn undo` restores and
 * checks against. The tool says which paths it writes; one that cannot say (a command, a tool
 * from elsewhere) is treated as if it could change any file: the workspace is compared before
 * and after it.
 */
export function withCheckpoints(
  tool: AnyTool,
  checkpoints: () => Promise<Checkpoints>,
  session: string,
): AnyTool {
  const changes = (t: AnyTool) => t.permission === "write" || t.permission === "exec";
  // A tool that calls another (call_mcp_tool) is checkpointed as the one it calls.
  if (!changes(tool) && !tool.actsAs) return tool;
  return {
    ...tool,
    async execute(args, ctx) {
      const judged = tool.actsAs?.(args) ?? tool;
      if (!changes(judged)) return tool.execute(args, ctx);
      const paths = tool.touches(args).writes;
      if (paths.length === 0) return tool.execute(args, ctx);
      if (paths === "unknown") {
        // A safety net, not a condition: where the workspace cannot be compared (git is not
        // installed, say), the call runs as it did before anything was checkpointed around it.
        const store = await checkpoints().catch(() => undefined);
        const before = await store?.scanWorkspace().catch(() => undefined);
        let changed: string[] = [];
        let output: Awaited<ReturnType<AnyTool["execute"]>>;
        try {
          output = await tool.execute(args, ctx);
        } finally {
          if (before && store) changed = await store.recordChanges(session, ctx.step, before).catch(() => []);
        }
        // What a command changed is a change like an edit's: the ending must not call it untouched.
        const reported = new Set([...(output.changedFiles ?? []), ...changed]);
        return reported.size ? { ...output, changedFiles: [...reported].sort() } : output;
      }
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
