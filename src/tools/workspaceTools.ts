import { commandTools } from "./command.js";
import { dataTools } from "./data.js";
import { exploreTools } from "./explore.js";
import { fileTools } from "./files.js";
import { gitTools } from "./git.js";
import type { AnyTool } from "./types.js";

/**
 * The tools every session has over its workspace: files, search, commands, git, data files. A
 * tool added here reaches the session and, when its permission is "read", the explorer too.
 */
export const WORKSPACE_TOOLS: readonly AnyTool[] = [
  ...fileTools,
  ...exploreTools,
  ...commandTools,
  ...gitTools,
  ...dataTools,
];
