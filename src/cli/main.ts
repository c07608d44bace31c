import { readFileSync } from "node:fs";
import { Command, CommanderError } from "commander";
import { exitWithParent } from "../platform/parentWatch.js";
import { stopWhenOutputCloses } from "../platform/signals.js";
import * as acp from "./commands/acp.js";
import * as agents from "./commands/agents.js";
import * as auth from "./commands/auth.js";
import * as batch from "./commands/batch.js";
import * as chat from "./commands/chat.js";
import * as checkpoints from "./commands/checkpoints.js";
import type { CommandContext } from "./commands/context.js";
import * as costs from "./commands/costs.js";
import * as demo from "./commands/demo.js";
import * as doTask from "./commands/do.js";
import * as evaluation from "./commands/eval.js";
import * as mcp from "./commands/mcp.js";
import * as models from "./commands/models.js";
import * as resume from "./commands/resume.js";
import * as rootCommand from "./commands/root.js";
import * as runTask from "./commands/run.js";
import * as schema from "./commands/schema.js";
import * as serve from "./commands/serve.js";
import * as sessions from "./commands/sessions.js";
import * as skills from "./commands/skills.js";
import * as trust from "./commands/trust.js";
import * as undo from "./commands/undo.js";
import * as worker from "./commands/worker.js";

exitWithParent();
stopWhenOutputCloses();

const pkg = JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as {
  version: string;
};

/**
 * Each command is a module of src/cli/commands that adds itself to the program; they are listed
 * here in the order `cairn --help` shows them. Commands load their modules when run, so `--help`
 * and `--version` start fast.
 */
const COMMANDS = [
  rootCommand,
  chat,
  doTask,
  runTask,
  resume,
  demo,
  acp,
  batch,
  evaluation,
  worker,
  sessions,
  costs,
  agents,
  schema,
  skills,
  models,
  auth,
  checkpoints,
  undo,
  mcp,
  trust,
  serve,
];

const program = new Command()
  .name("cairn")
  .description("An autonomous coding agent: plans, edits, runs your tests, and reports what it cost.")
  .version(pkg.version)
  .showHelpAfterError("(add --help for the command's options)")
  // Commander leaves a description unwrapped when less than 40 columns are left beside a long
  // term (`mcp add [options] <name> <command-or-url...>`), so at 80 columns it ran to 137.
  .configureHelp({ minWidthToWrap: 20 })
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

const context: CommandContext = { version: pkg.version, io: { out: process.stdout, err: process.stderr } };
for (const command of COMMANDS) command.register(program, context);

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
