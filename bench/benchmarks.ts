import { benchCache } from "./cache.js";
import { benchContext } from "./context.js";
import { benchEdits } from "./edits.js";
import { benchHistory, type HistoryOptions } from "./history.js";
import { benchHuge, type HugeOptions } from "./huge.js";
import type { BenchResult } from "./lib/report.js";
import { benchOverhead } from "./overhead.js";
import { benchQueue } from "./queue.js";
import { benchQuit } from "./quit.js";
import { benchRelevance } from "./relevance.js";
import { benchRepair } from "./repair.js";
import { benchRequestTokens } from "./requestTokens.js";
import { benchSearch } from "./search.js";
import { benchStartup } from "./startup.js";
import { benchTokens, type TokensOptions } from "./tokens.js";
import { benchTui, TUI_FULL, TUI_SMOKE } from "./tui.js";

export interface Scale {
  startupRuns: number;
  firstRequestRuns: number;
  overheadTurns: number;
  cacheDoTurns: number;
  cacheRunTurns: number;
  /** The cache benchmark's sessions that load a tool mid-way: their wire formats, and whether fetch_webpage's too. */
  cacheToolLoad: { formats: readonly ("openai" | "anthropic")[]; web: boolean };
  editsPerCategory: number;
  repairSamples: number;
  /** Files of node_modules in the search tree; all of them when undefined. */
  searchFiles: number | undefined;
  searchRuns: number;
  /** The one-line file searched beside normal ones (issue 15). */
  searchOneLineBytes: number;
  contextTurns: number;
  /** The terminal UI's benchmark (issue 6) at full or smoke size. */
  tui: typeof TUI_FULL;
  /** Tasks of the queue benchmark, and how many run at once. */
  queueTasks: number;
  queueJobs: number;
  /** Commits of this repository asked about by the file-relevance benchmark. */
  relevanceCommits: number;
  /** Inputs of the token counting benchmark (issue 26). */
  tokens: TokensOptions;
  /** The request tokens benchmark's second session, with two real MCP servers (issue 27). */
  requestMcp: boolean;
  /** Times the terminal UI is started and quit with Ctrl-C Ctrl-C. */
  quitRuns: number;
  /** The session whose model writes one huge argument (issue 26). */
  huge: HugeOptions;
  /** The made-up history mined by the history suite benchmark (issue 41). */
  history: HistoryOptions;
}

export const FULL: Scale = {
  startupRuns: 31,
  firstRequestRuns: 11,
  overheadTurns: 100,
  cacheDoTurns: 40,
  cacheRunTurns: 5,
  cacheToolLoad: { formats: ["openai", "anthropic"], web: true },
  editsPerCategory: 40,
  repairSamples: 27,
  searchFiles: undefined,
  searchRuns: 5,
  searchOneLineBytes: 50_000_000,
  contextTurns: 30,
  tui: TUI_FULL,
  queueTasks: 12,
  queueJobs: 2,
  relevanceCommits: 80,
  tokens: { chars: 1 << 20, hugeChars: 10 << 20, rawChars: 16 << 10, runs: 5 },
  requestMcp: true,
  quitRuns: 7,
  huge: { bytes: 10 << 20, runs: 3 },
  history: { commits: 7, jobs: 2 },
};

/** Every benchmark through the same code paths at sizes that take seconds: what the smoke test runs. */
export const SMOKE: Scale = {
  startupRuns: 2,
  firstRequestRuns: 1,
  overheadTurns: 6,
  cacheDoTurns: 6,
  cacheRunTurns: 2,
  cacheToolLoad: { formats: ["openai"], web: false },
  editsPerCategory: 3,
  repairSamples: 3,
  searchFiles: 300,
  searchRuns: 1,
  searchOneLineBytes: 2_000_000,
  contextTurns: 6,
  tui: TUI_SMOKE,
  queueTasks: 2,
  queueJobs: 2,
  relevanceCommits: 4,
  tokens: { chars: 96 << 10, hugeChars: 1 << 20, rawChars: 4 << 10, runs: 1 },
  requestMcp: true,
  quitRuns: 1,
  huge: { bytes: 256 << 10, runs: 1 },
  history: { commits: 3, jobs: 2 },
};

/** In the order of the issue that asked for them (issue 7), which is the order of the table. */
export const BENCHMARKS: Record<string, (scale: Scale) => Promise<BenchResult>> = {
  startup: (scale) => benchStartup({ runs: scale.startupRuns, sessionRuns: scale.firstRequestRuns }),
  overhead: (scale) => benchOverhead({ turns: scale.overheadTurns }),
  cache: (scale) =>
    benchCache({ doTurns: scale.cacheDoTurns, runTurns: scale.cacheRunTurns, toolLoad: scale.cacheToolLoad }),
  edits: (scale) => benchEdits({ perCategory: scale.editsPerCategory }),
  repair: (scale) => benchRepair({ samples: scale.repairSamples }),
  search: (scale) =>
    benchSearch({
      maxFiles: scale.searchFiles,
      runs: scale.searchRuns,
      oneLineBytes: scale.searchOneLineBytes,
    }),
  context: (scale) => benchContext({ turns: scale.contextTurns }),
  tui: (scale) => benchTui(scale.tui),
  queue: (scale) => benchQueue({ tasks: scale.queueTasks, jobs: scale.queueJobs }),
  relevance: (scale) => benchRelevance({ commits: scale.relevanceCommits }),
  tokens: (scale) => benchTokens(scale.tokens),
  request: (scale) => benchRequestTokens({ mcp: scale.requestMcp }),
  quit: (scale) => benchQuit({ runs: scale.quitRuns }),
  huge: (scale) => benchHuge(scale.huge),
  history: (scale) => benchHistory(scale.history),
};
