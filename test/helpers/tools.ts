import type { ToolContext } from "../../src/tools/types.js";

/**
 * What a turn hands its tools (toolContextFor in src/agent/dispatch.ts), for tests that call a
 * tool directly: the workspace alone, a signal nobody aborts, and whatever else the test gives.
 */
export function toolContext(workspace: string, extra: Partial<ToolContext> = {}): ToolContext {
  return {
    workspace,
    extraRoots: [],
    signal: new AbortController().signal,
    step: "test",
    commandTimeoutMs: 10_000,
    ...extra,
  };
}
