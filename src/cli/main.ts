import { readFileSync } from "node:fs";
import { Command, CommanderError, Option } from "commander";
import { addCommonOptions, type CommonOptions } from "./options.js";

const pkg = JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as {
  version: string;
};

/** Commands load their modules when run, so `--help` and `--version` start fast. */
const program = new Command()
  .name("cairn")
  .description("An autonomous coding agent: plans, edits, runs your tests, and reports what it cost.")
  .version(pkg.version)
  .showHelpAfterError()
  .exitOverride();

addCommonOptions(
  program
    .command("do")
    .description("do one task with a single tool loop, then answer")
    .argument("<task...>", "what to do, in plain words"),
).action(async (task: string[], options: CommonOptions) => {
  const { taskCommand } = await import("./task.js");
  process.exitCode = await taskCommand("do", task.join(" "), options);
});

addCommonOptions(
  program
    .command("run")
    .description("take a task to a verified finish: plan, edit, run the checks, review, revise")
    .argument("<task...>", "what to do, in plain words"),
).action(async (task: string[], options: CommonOptions) => {
  const { taskCommand } = await import("./task.js");
  process.exitCode = await taskCommand("run", task.join(" "), options);
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
