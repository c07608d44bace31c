import { Option } from "commander";
import { addCommonOptions, type CommonOptions } from "../options.js";
import type { Register } from "./context.js";

export const register: Register = (program) => {
  addCommonOptions(
    program
      .command("demo")
      .description(
        "run cairn on a small repository with a failing test (a recorded model when no API key is set)",
      )
      .addOption(new Option("--recorded", "use the recorded model even when an API key is set"))
      .addOption(
        new Option("--keep", "keep the demo repository afterwards, to look at (it is removed otherwise)"),
      ),
  ).action(async (options: CommonOptions & { recorded?: boolean; keep?: boolean }) => {
    const { demoCommand } = await import("../demo.js");
    process.exitCode = await demoCommand(options);
  });
};
