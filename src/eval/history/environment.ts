import { existsSync } from "node:fs";
import path from "node:path";
import { detectValidation } from "../../verify/strategy.js";
import { shellQuote } from "../runners.js";
import { detectRunner, type TestRunner } from "./runners/index.js";
import type { MiningSettings } from "./types.js";

/** The commands a checkout's tests are built and run with. */
export interface CheckoutCommands {
  runner?: TestRunner;
  /** The project's build, given or found. */
  build?: string;
  /** Where no build is given: that the changed sources parse. */
  parse?: string;
}

/** Sources a parse alone can check, where a project has no build: the parent must at least parse. */
const SYNTAX_CHECKS: Array<{ extensions: RegExp; command: (files: string[]) => string[] }> = [
  { extensions: /\.py$/, command: (files) => [`python3 -m py_compile ${files.map(shellQuote).join(" ")}`] },
  { extensions: /\.[cm]?js$/, command: (files) => files.map((file) => `node --check ${shellQuote(file)}`) },
];

/** A check that the changed source files that are in the checkout parse: Python byte-compiles, JavaScript `node --check`. */
function syntaxCheck(checkout: string, sources: readonly string[]): string | undefined {
  const present = sources.filter((file) => existsSync(path.join(checkout, file)));
  const commands = SYNTAX_CHECKS.flatMap(({ extensions, command }) => {
    const files = present.filter((file) => extensions.test(file));
    return files.length ? command(files) : [];
  });
  return commands.length ? commands.join(" && ") : undefined;
}

/**
 * How a checkout's tests run and how it builds: the test command given, else the one the check
 * discovery of `cairn run` finds (package scripts, pytest, go test, cargo, a Makefile, CI steps),
 * read for its runner; the build given, else the project's build script, and a parse of the
 * changed sources (`--no-build`: neither).
 */
export async function checkoutCommands(
  checkout: string,
  sources: readonly string[],
  settings: MiningSettings,
): Promise<CheckoutCommands> {
  const found =
    settings.testCommand && settings.buildCommand !== undefined
      ? undefined
      : await detectValidation(checkout, { changedFiles: [...sources] });
  const test = settings.testCommand ?? found?.checks.find((check) => check.kind === "test")?.command;
  const build =
    settings.buildCommand === undefined
      ? found?.checks.find((check) => check.kind === "build")?.command
      : settings.buildCommand || undefined;
  const parse = settings.buildCommand === undefined ? syntaxCheck(checkout, sources) : undefined;
  return {
    ...(test ? { runner: detectRunner(test, checkout) } : {}),
    ...(build ? { build } : {}),
    ...(parse ? { parse } : {}),
  };
}

/**
 * What each checkout runs first: `--setup` when given; else, for a JavaScript project whose
 * checkout has its packages installed, a link to them (worktrees have no node_modules of their own).
 */
export function setupCommand(repository: string | undefined, settings: MiningSettings): string | undefined {
  if (settings.setupCommand) return settings.setupCommand;
  if (!repository) return undefined;
  const modules = path.join(repository, "node_modules");
  return existsSync(modules) ? `[ -e node_modules ] || ln -s ${shellQuote(modules)} node_modules` : undefined;
}
