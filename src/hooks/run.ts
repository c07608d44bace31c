import { spawnGroup } from "../platform/processes.js";
import { truncateHeadTail } from "../platform/truncate.js";

/** A hook's command may take this long unless its `timeout` says otherwise, as in Claude Code. */
export const DEFAULT_HOOK_TIMEOUT_S = 60;
/** What is kept of a hook's output: a reason or some context, not a log. */
const OUTPUT_LIMITS = { headBytes: 8_000, tailBytes: 2_000 };

/** How one hook command ended. */
export interface HookRun {
  command: string;
  /** 0: go on; 2: block, with `stderr` as the reason; anything else: the hook failed (it blocks nothing). */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** Why it could not be started at all. */
  failed?: string;
}

/**
 * Runs one hook: `sh -c command` in the workspace, with the event as JSON on its standard input,
 * stopped (with everything it started) after its timeout or when `signal` aborts.
 */
export async function runHookCommand(
  command: string,
  input: unknown,
  options: {
    cwd: string;
    env: Record<string, string>;
    timeoutS?: number | undefined;
    signal?: AbortSignal | undefined;
  },
): Promise<HookRun> {
  let stdout = "";
  let stderr = "";
  const handle = spawnGroup("sh", ["-c", command], {
    cwd: options.cwd,
    env: options.env,
    input: `${JSON.stringify(input)}\n`,
    timeoutMs: (options.timeoutS ?? DEFAULT_HOOK_TIMEOUT_S) * 1000,
    graceMs: 1_000,
    ...(options.signal ? { signal: options.signal } : {}),
    onStdout: (chunk) => {
      stdout += chunk;
    },
    onStderr: (chunk) => {
      stderr += chunk;
    },
  });
  const kept = (text: string) => truncateHeadTail(text, OUTPUT_LIMITS).text.trim();
  try {
    const result = await handle.done;
    return {
      command,
      exitCode: result.exitCode,
      stdout: kept(stdout),
      stderr: kept(stderr),
      timedOut: result.timedOut,
    };
  } catch (error) {
    return {
      command,
      exitCode: null,
      stdout: "",
      stderr: "",
      timedOut: false,
      failed: error instanceof Error ? error.message : String(error),
    };
  }
}
