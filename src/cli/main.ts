import { readFileSync } from "node:fs";
import { Argument, Command, CommanderError, InvalidArgumentError, Option } from "commander";
import { exitWithParent } from "../platform/parentWatch.js";
import { addBatchOptions, approvalOption, batchFormat } from "./batchOptions.js";
import {
  addCommonOptions,
  batchWorkspaceOption,
  type CommonOptions,
  cwdOption,
  existingFolder,
  folderToMake,
  positiveInteger,
  positiveNumber,
} from "./options.js";

exitWithParent();

const pkg = JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as {
  version: string;
};

const AGENT_FLAG = "--agent <target>";
const AGENT_HELP =
  "carry out the execution through another agent: a named agent, agent:codex, agent:claude-code, agent:gemini, agent:opencode, agent:ollama or llm:<profile>";

/**
 * What `cairn do`, `run` and `-p` run on. The sandbox probe (a trial run of bwrap) starts first,
 * so that it runs on the other core while the session's modules load.
 */
async function loadTask() {
  void (await import("../safety/sandbox.js")).detectSandboxSoon();
  const [{ taskCommand }, { taskWithInput }] = await Promise.all([import("./task.js"), import("./stdin.js")]);
  return { taskCommand, taskWithInput };
}

/** Commands load their modules when run, so `--help` and `--version` start fast. */
const program = new Command()
  .name("cairn")
  .description("An autonomous coding agent: plans, edits, runs your tests, and reports what it cost.")
  .version(pkg.version)
  .showHelpAfterError("(add --help for the command's options)")
  .exitOverride()
  // Flags after a command are that command's: `cairn do --model x` as much as `cairn --model x`.
  .enablePositionalOptions()
  .hook("preAction", (root, command) => carryRootFlags(root, command));

/**
 * Flags written before a command (`cairn --model x do …`) are parsed as the bare command's; they
 * are handed to the command, where its own flags win, and one it does not take is bad usage
 * rather than silently dropped.
 */
function carryRootFlags(root: Command, command: Command): void {
  if (command === root) return;
  for (const option of root.options) {
    const name = option.attributeName();
    const source = root.getOptionValueSource(name);
    if (source !== "cli" && source !== "env") continue;
    if (!command.options.some((own) => own.attributeName() === name))
      command.error(`error: ${option.long ?? option.flags} does not apply to cairn ${command.name()}`, {
        exitCode: 2,
        code: "cairn.rootFlag",
      });
    if (command.getOptionValueSource(name) !== "cli")
      command.setOptionValueWithSource(name, root.getOptionValue(name), source);
  }
}

/**
 * The terminal UI is about to load: the keyboard leaves the terminal's line mode now rather than
 * once the UI is up, so what is typed meanwhile waits as keys (an Enter as an Enter, not as a line
 * feed) for the UI to take. Node puts the terminal back as it was when cairn exits.
 */
function holdKeysForTheUi(): void {
  if (process.stdin.isTTY && process.stdout.isTTY) process.stdin.setRawMode(true);
}

interface RootOptions extends CommonOptions {
  print?: boolean;
  continue?: boolean;
  resume?: string | true;
}

/**
 * `cairn [message]`: the terminal UI, opened on a first message when one is given; `-p` runs
 * the message headless and prints the answer (piped input is appended, or is the message);
 * `-c` continues this folder's last session, `-r [id]` a chosen one.
 */
addCommonOptions(program)
  .argument("[message...]", "a first message for the agent")
  .option("-p, --print", "run the message headless (one tool loop, like cairn do) and print the answer")
  .option("-c, --continue", "continue the last session of this folder")
  .option("-r, --resume [id]", "continue a session: the one named, or pick from this folder's")
  .action(async (message: string[], options: RootOptions) => {
    if (options.print) {
      const { taskCommand, taskWithInput } = await loadTask();
      process.exitCode = await taskCommand("do", await taskWithInput(message), options);
      return;
    }
    // Without a terminal there is nobody to talk to: what is piped in is the message (`echo x |
    // cairn > out.txt`), and with nothing piped either the help says what else there is.
    if (!process.stdout.isTTY && message.length === 0 && !options.continue && !options.resume) {
      const { pipedMessage } = await import("./stdin.js");
      if (!(await pipedMessage())) {
        program.outputHelp();
        return;
      }
    }
    holdKeysForTheUi();
    const { interactiveCommand } = await import("./interactive.js");
    process.exitCode = await interactiveCommand(options, {
      ...(message.length ? { firstMessage: message.join(" ") } : {}),
      ...(options.continue ? { resume: "last" as const } : {}),
      ...(options.resume ? { resume: options.resume === true ? ("pick" as const) : options.resume } : {}),
    });
  });

addCommonOptions(
  program.command("chat").description("talk with the agent in the terminal UI (piped: one message)"),
).action(async (options: CommonOptions) => {
  holdKeysForTheUi();
  const { interactiveCommand } = await import("./interactive.js");
  process.exitCode = await interactiveCommand(options);
});

addCommonOptions(
  program
    .command("do")
    .description("do one task with a single tool loop, then answer")
    .argument("[task...]", "what to do, in plain words; - reads it from standard input")
    .option(AGENT_FLAG, AGENT_HELP)
    .addOption(batchWorkspaceOption()),
).action(async (task: string[], options: CommonOptions & { agent?: string; batchWorkspace?: string }) => {
  const { taskCommand, taskWithInput } = await loadTask();
  process.exitCode = await taskCommand("do", await taskWithInput(task), options);
});

addCommonOptions(
  program
    .command("run")
    .description("take a task to a verified finish: plan, edit, run the checks, review, revise")
    .argument("[task...]", "what to do, in plain words; - reads it from standard input")
    .option("--resume <id>", "continue an interrupted session instead of starting one")
    .option(AGENT_FLAG, AGENT_HELP)
    .addOption(batchWorkspaceOption()),
).action(
  async (
    task: string[],
    options: CommonOptions & { resume?: string; agent?: string; batchWorkspace?: string },
  ) => {
    if (options.resume) {
      const { resumeCommand } = await import("./resume.js");
      process.exitCode = await resumeCommand(options.resume, options);
      return;
    }
    const { taskCommand, taskWithInput } = await loadTask();
    process.exitCode = await taskCommand("run", await taskWithInput(task), options);
  },
);

addCommonOptions(
  program
    .command("resume")
    .description("continue an interrupted session from its last completed action")
    .argument("[id]", "session id or a unique prefix")
    .option("--last", "the newest session in this folder"),
).action(async (id: string | undefined, options: CommonOptions & { last?: boolean }) => {
  const { resumeCommand } = await import("./resume.js");
  process.exitCode = await resumeCommand(id, options);
});

addCommonOptions(
  program
    .command("demo")
    .description(
      "run cairn on a small repository with a failing test (a recorded model when no API key is set)",
    )
    .addOption(new Option("--recorded", "use the recorded model even when an API key is set")),
).action(async (options: CommonOptions & { recorded?: boolean }) => {
  const { demoCommand } = await import("./demo.js");
  process.exitCode = await demoCommand(options);
});

addCommonOptions(
  program
    .command("acp")
    .description("serve the Agent Client Protocol on stdin and stdout, for editors (Zed, Emacs, Neovim)"),
).action(async (options: CommonOptions) => {
  const { acpCommand } = await import("./acp.js");
  process.exitCode = await acpCommand(options, pkg.version);
});

const batch = addBatchOptions(
  program
    .command("batch")
    .description("run many tasks, each in its own copy of its repository, here or through a queue")
    .argument(
      "<tasks>",
      "a .jsonl, .json or .yaml file of tasks: {id, repo, ref?, task, mode, verify?, model?, max_cost?, timeout?}",
    ),
).action(async (file: string, options) => {
  const { batchCommand } = await import("./batch.js");
  process.exitCode = await batchCommand(file, options);
});
batch
  .command("status")
  .description("follow a batch on a queue: live progress, and its results collected into --out")
  .argument("<batch-id>", "the id cairn batch --queue printed")
  .requiredOption("--queue <url>", "the Redis the batch was put on")
  .option("--out <dir>", "the results folder (default: the one given when it was enqueued)", folderToMake)
  .addOption(batchFormat())
  .action(async (id: string, options) => {
    const { batchStatusCommand } = await import("./batch.js");
    process.exitCode = await batchStatusCommand(id, options);
  });

const evaluation = addBatchOptions(
  program
    .command("eval")
    .description(
      "measure: a suite of tasks run through the batch engine, graded by tests the agent could not edit",
    )
    .argument(
      "<suite>",
      "builtin, polyglot (aider's benchmark, with --source), a folder of exercises (Exercism layout) or a file of SWE-style instances",
    )
    .addOption(
      new Option("--mode <mode>", "how each task runs: cairn do or cairn run")
        .choices(["do", "run"])
        .default("run"),
    )
    .option(
      "--tasks <globs>",
      "only the tasks whose id matches one of these comma-separated globs (python/*)",
    )
    .option("--source <dir>", "for polyglot: the checkout of github.com/Aider-AI/polyglot-benchmark")
    .addOption(
      new Option(
        "--tries <n>",
        "2: a task not solved gets a second try with its failing tests' output, as aider's benchmark does (reported as pass@2)",
      )
        .default(1)
        .argParser((value): 1 | 2 => {
          if (value !== "1" && value !== "2") throw new InvalidArgumentError("expected 1 or 2.");
          return Number(value) as 1 | 2;
        }),
    )
    .addOption(
      new Option(
        "--grade-only <what>",
        "run no agent: grade each exercise's reference solution, or the exercises as given (checks the toolchains; no key needed)",
      ).choices(["reference", "given"]),
    ),
).action(async (suite: string, options) => {
  const { evalCommand } = await import("./eval.js");
  process.exitCode = await evalCommand(suite, options);
});
evaluation
  .command("compare")
  .description(
    "two eval reports side by side: pass@1, dollars per solved task, tokens, time, tasks that changed; or a report beside aider's leaderboard",
  )
  .argument("<a>", "a report.json, or the --out folder of an eval")
  .argument("[b]", "the other one")
  .option(
    "--leaderboard <file>",
    "aider's polyglot_leaderboard.yml: set each report beside the leaderboard's row for its model",
  )
  .option("--leaderboard-model <name>", "the leaderboard's row to use: its model or dirname")
  .addOption(batchFormat())
  .action(async (a: string, b: string | undefined, options) => {
    const { evalCompareCommand } = await import("./eval.js");
    process.exitCode = await evalCompareCommand(a, b, options);
  });

program
  .command("worker")
  .description("take tasks from a queue and run them, until stopped (Ctrl-C)")
  .requiredOption("--queue <url>", "the Redis of the queue (redis://host:6379)")
  .option("--concurrency <n>", "tasks at once", positiveInteger, 1)
  .option("--config <file>", "extra config file for every task run here")
  .addOption(
    approvalOption(
      "what tasks run here may do without asking, whatever their batch said (default: the batch's --approval)",
    ),
  )
  .option(
    "--allow-unsandboxed",
    "where no sandbox works, let --approval auto run commands unconfined, on purpose",
  )
  .option("--keep-failed", "keep the isolated copy of a task that did not complete")
  .option("--name <name>", "how this worker is named in results (default: host:pid)")
  .option(
    "--lock-duration <seconds>",
    "a task of a worker that vanished is taken by another after about this long",
    positiveNumber,
    30,
  )
  .addOption(batchFormat())
  .action(async (options) => {
    const { workerCommand } = await import("./batch.js");
    process.exitCode = await workerCommand(options);
  });

const io = { out: process.stdout, err: process.stderr };

/** Runs a command over the session store, closed afterwards whatever happens. */
async function withStore(command: (store: import("../store/sessions.js").Store) => number): Promise<void> {
  const [{ Store }, { storePath }] = await Promise.all([
    import("../store/sessions.js"),
    import("../store/db.js"),
  ]);
  const store = Store.open(storePath());
  try {
    process.exitCode = command(store);
  } finally {
    store.close();
  }
}

const sessions = program
  .command("sessions")
  .description("list past sessions, newest first")
  .option("--limit <n>", "how many", "20")
  .option("--workspace <dir>", "only sessions run in this folder")
  .option("--json", "print JSON")
  .action(async (options) => {
    const { sessionsCommand } = await import("./sessions.js");
    await withStore((store) => sessionsCommand(store, options, io));
  });
sessions
  .command("show")
  .description("a session's timeline")
  .argument("<id>", "session id or a unique prefix")
  .option("--json", "print JSON")
  .action(async (id: string, options) => {
    const { sessionsShowCommand } = await import("./sessions.js");
    await withStore((store) => sessionsShowCommand(store, id, options, io));
  });
sessions
  .command("export")
  .description("a session as a Markdown report or JSON")
  .argument("<id>", "session id or a unique prefix")
  .option("--format <format>", "md or json", "md")
  .action(async (id: string, options) => {
    const { sessionsExportCommand } = await import("./sessions.js");
    await withStore((store) => sessionsExportCommand(store, id, options, io));
  });
sessions
  .command("rm")
  .description("delete a session, its events and its usage rows")
  .argument("<id>", "session id or a unique prefix")
  .action(async (id: string) => {
    const { sessionsRmCommand } = await import("./sessions.js");
    await withStore((store) => sessionsRmCommand(store, id, io));
  });

program
  .command("costs")
  .description("tokens and dollars spent, by day, model, phase, agent or workspace")
  .option("--since <when>", "a span (12h, 7d, 2w), a day (2026-11-01) or an ISO date-time")
  .option("--by <group>", "day, model, phase, agent or workspace", "day")
  .option("--json", "print JSON")
  .action(async (options) => {
    const { costsCommand } = await import("./costs.js");
    await withStore((store) => costsCommand(store, options, io));
  });

program
  .command("agents")
  .description(
    "the agents task and --agent can name, where each came from, and the external agents installed",
  )
  .addOption(cwdOption())
  .option("--config <file>", "extra config file, applied over the global and project ones")
  .option("--json", "print JSON")
  .action(async (options: { cwd?: string; config?: string; json?: boolean }) => {
    const { agentsCommand } = await import("./agents.js");
    process.exitCode = await agentsCommand(options, io);
  });

program
  .command("schema")
  .description("the protocol as JSON Schema: a stream-json line (events), the run result, an op")
  .addArgument(new Argument("<name>", "which document").choices(["events", "result", "ops"]))
  .action(async (name: "events" | "result" | "ops") => {
    const { schemaCommand } = await import("./schema.js");
    process.exitCode = schemaCommand(name, io);
  });

program
  .command("models")
  .description(
    "what cairn knows of models — window, tool calls, images — and where from: the config, the price list, or the local server",
  )
  .argument(
    "[models...]",
    "provider/model ids to ask about now (default: the run's model, and every one learned before)",
  )
  .addOption(cwdOption())
  .option("--config <file>", "extra config file, applied over the global and project ones")
  .option("--json", "print JSON")
  .action(async (models: string[], options: { cwd?: string; config?: string; json?: boolean }) => {
    const { modelsCommand } = await import("./models.js");
    process.exitCode = await modelsCommand(models, options, io);
  });

program
  .command("skills")
  .description(
    "the skills the model can load here (SKILL.md folders), where each comes from, and what it is for",
  )
  .addOption(cwdOption())
  .option("--config <file>", "extra config file, applied over the global and project ones")
  .option("--json", "print JSON")
  .action(async (options: { cwd?: string; config?: string; json?: boolean }) => {
    const { skillsCommand } = await import("./skills.js");
    process.exitCode = await skillsCommand(options, {
      ...io,
      ...(process.stdout.columns ? { columns: process.stdout.columns } : {}),
    });
  });

const auth = program
  .command("auth")
  .description(
    "API keys stored for cairn, used where the environment has none (an MCP client's, an editor's)",
  );
auth
  .command("login")
  .description("store a provider's API key, typed hidden or piped in, in a file only you can read")
  .argument("<provider>", "openrouter, anthropic, openai, google, ollama or openai-compatible")
  .addOption(cwdOption("the folder whose config names the key variables (default: the current folder)"))
  .option("--config <file>", "extra config file, applied over the global and project ones")
  .action(async (provider: string, options) => {
    const { authLoginCommand } = await import("./auth.js");
    process.exitCode = await authLoginCommand(provider, options, io);
  });
auth
  .command("logout")
  .description("remove a provider's stored API key")
  .argument("<provider>", "the provider whose key to remove")
  .addOption(cwdOption("the folder whose config names the key variables (default: the current folder)"))
  .option("--config <file>", "extra config file, applied over the global and project ones")
  .action(async (provider: string, options) => {
    const { authLogoutCommand } = await import("./auth.js");
    process.exitCode = await authLogoutCommand(provider, options, io);
  });
auth
  .command("list")
  .description(
    "each provider's key variable, and whether its key is in the environment or stored (never the key)",
  )
  .addOption(cwdOption("the folder whose config names the key variables (default: the current folder)"))
  .option("--config <file>", "extra config file, applied over the global and project ones")
  .option("--json", "print JSON")
  .action(async (options) => {
    const { authListCommand } = await import("./auth.js");
    process.exitCode = await authListCommand(options, io);
  });

async function openCheckpoints(cwd: string | undefined) {
  const [{ Checkpoints }, { dataDir }] = await Promise.all([
    import("../store/checkpoints.js"),
    import("../config/load.js"),
  ]);
  return Checkpoints.open(cwd ?? process.cwd(), { dataDir: dataDir() });
}

program
  .command("checkpoints")
  .description("the snapshots taken before cairn changed files in this workspace, newest first")
  .argument("[session]", "only this session's (id or unique prefix)")
  .addOption(cwdOption())
  .option("--json", "print JSON")
  .action(async (session: string | undefined, options: { cwd?: string; json?: boolean }) => {
    const { checkpointsCommand } = await import("./checkpoints.js");
    const checkpoints = await openCheckpoints(options.cwd);
    process.exitCode = await checkpointsCommand(
      checkpoints,
      { ...options, ...(session ? { session } : {}) },
      io,
    );
  });

program
  .command("undo")
  .description("restore the files as they were before a checkpoint (default: the latest)")
  .argument("[checkpoint]", "checkpoint id or unique prefix")
  .addOption(cwdOption())
  .option("--force", "restore even files changed outside cairn since")
  .action(async (checkpoint: string | undefined, options: { cwd?: string; force?: boolean }) => {
    const { undoCommand } = await import("./checkpoints.js");
    const checkpoints = await openCheckpoints(options.cwd);
    process.exitCode = await undoCommand(
      checkpoints,
      { ...options, ...(checkpoint ? { checkpoint } : {}) },
      io,
    );
  });

const collect = (value: string, previous: string[]) => [...previous, value];

const mcp = program
  .command("mcp")
  .description("MCP servers: the ones whose tools cairn offers, and cairn as one");
mcp
  .command("list")
  .description("start each configured MCP server and show its status and tool count")
  .addOption(cwdOption())
  .option("--config <file>", "extra config file, applied over the global and project ones")
  .option("--json", "print JSON")
  .action(async (options) => {
    const { mcpListCommand } = await import("./mcp.js");
    process.exitCode = await mcpListCommand(options, io);
  });
mcp
  .command("add")
  .description("add a server: cairn mcp add <name> -- <command> [args…], or --transport http <name> <url>")
  .argument("<name>", "the server's name; its tools are offered as <name>__<tool>")
  .argument("<command-or-url...>", "the command and its arguments (after --), or the URL")
  .addOption(
    new Option("--transport <type>", "how to reach it").choices(["stdio", "http", "sse"]).default("stdio"),
  )
  .addOption(
    new Option("--scope <scope>", "which config file: the project's or the global one")
      .choices(["project", "global"])
      .default("project"),
  )
  .option("-e, --env <KEY=value>", "an environment variable for the command (repeatable)", collect, [])
  .option(
    "-H, --header <Name: value>",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: ${VAR} is what the person types
    "an HTTP header; write ${VAR} to keep a token in the environment (repeatable)",
    collect,
    [],
  )
  .addOption(cwdOption())
  .action(async (name: string, target: string[], options) => {
    const { mcpAddCommand } = await import("./mcp.js");
    process.exitCode = await mcpAddCommand(name, target, options, io);
  });
mcp
  .command("remove")
  .description(
    "remove a server from the config files that have it (the project's, the global one, .mcp.json)",
  )
  .argument("<name>", "the server's name")
  .addOption(new Option("--scope <scope>", "only this file").choices(["project", "global", "mcp-json"]))
  .addOption(cwdOption())
  .action(async (name: string, options) => {
    const { mcpRemoveCommand } = await import("./mcp.js");
    process.exitCode = await mcpRemoveCommand(name, options, io);
  });
mcp
  .command("serve")
  .description("serve cairn_do and cairn_run to an MCP client over stdio (Claude Code, Codex, …)")
  .addOption(
    cwdOption("the folder tasks run in unless they give their own cwd (default: the current folder)"),
  )
  .option("--config <file>", "extra config file, applied over the global and project ones")
  .action(async (options: { cwd?: string; config?: string }) => {
    const { serveMcp } = await import("../mcp/serve.js");
    await serveMcp({ cwd: options.cwd ?? process.cwd(), configFile: options.config });
  });

program
  .command("trust")
  .description(
    "trust a folder: what its own files (.cairn/config.yaml, .mcp.json, agents) ask for beyond your settings applies there",
  )
  .argument("[dir]", "the folder (default: the current one)", existingFolder)
  .option("--list", "the folders you trust, and whether their files changed since")
  .option("--revoke <dir>", "stop trusting a folder")
  .option("--json", "print JSON (with --list)")
  .action(async (dir: string | undefined, options) => {
    const { trustCommand } = await import("./trust.js");
    process.exitCode = await trustCommand(dir, options, io);
  });

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new InvalidArgumentError("expected a port number from 0 (any free port) to 65535.");
  return n;
}

program
  .command("serve")
  .description("the HTTP API and the web dashboard: sessions, live events, approvals, costs (docs/server.md)")
  .option("--port <n>", "port to listen on (0: any free port)", port, 4517)
  .option(
    "--host <address>",
    "address to listen on; other than loopback needs a token you choose",
    "127.0.0.1",
  )
  .option("--token <token>", "the access token (default: a random one, printed); also CAIRN_SERVER_TOKEN")
  .addOption(cwdOption("the folder sessions may run in (default: the current folder)"))
  .option("--config <file>", "extra config file, applied over the global and project ones")
  .action(async (options) => {
    const { serveCommand } = await import("./serve.js");
    process.exitCode = await serveCommand(options, io);
  });

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    // Help and version are not errors; everything else commander rejects is bad usage.
    process.exitCode = error.exitCode === 0 ? 0 : 2;
  } else {
    const { reportFatal } = await import("./fatal.js");
    process.exitCode = reportFatal(error);
  }
}
