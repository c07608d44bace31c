import { readFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import type { Rule } from "../config/schema.js";
import type { CarriedTrust, WorkspaceSetting } from "../config/trust/narrow.js";
import { chosenProvider, goesElsewhere, type ProviderName, parseModelId } from "../model/providers.js";
import { readFrontMatter } from "../platform/frontMatter.js";
import { describeIssue } from "../platform/issues.js";
import { splitCommandLine } from "../platform/shell/split.js";
import { firstLine, shownPath } from "../platform/text.js";
import { cairnToolName } from "./claudeNames.js";
import { type ExtensionScope, entriesOf, extensionFolders } from "./places.js";

/**
 * A custom slash command: a Markdown file whose body is the prompt (`.cairn/commands/review.md`
 * is `/review`), as Claude Code, gemini-cli and opencode write them.
 */
export interface CustomCommand {
  name: string;
  /** Said in /help: the front matter's, or the body's first line. */
  description: string;
  /** What the arguments are, for /help and completion: `[file] [focus]`. */
  argumentHint?: string;
  /** The model its turn runs on: a role of the config or a provider/model id. */
  model?: string;
  /** What its turn may do without asking (`allowed-tools`), as approval rules. */
  allows: Rule[];
  body: string;
  scope: ExtensionScope;
  /** The file, as the person finds it. */
  file: string;
}

export interface CommandCatalog {
  commands: Map<string, CustomCommand>;
  /** One line per file that could not be read, or part of one that was left out. */
  problems: string[];
  /** What the project's commands ask for beyond the person's settings: applied only when the folder is trusted. */
  widening: WorkspaceSetting[];
}

/** Command names are file names, typed after the slash: letters, digits, `-`, `_`, `.`, `:`. */
const COMMAND_NAME = /^[a-z0-9][\w.:-]*$/;

/** A list, or the comma-separated line Claude Code writes (`Bash(git add:*), Read`). */
const toolList = z
  .union([z.array(z.string()), z.string()])
  .transform((value) =>
    (Array.isArray(value) ? value : value.split(/,(?![^(]*\))/)).map((t) => t.trim()).filter(Boolean),
  );

/** Keys other agents write and cairn does not use (`disable-model-invocation`) are ignored. */
const frontMatterSchema = z.object({
  description: z.string().optional(),
  "argument-hint": z.string().optional(),
  model: z.string().optional(),
  "allowed-tools": toolList.optional(),
});

/**
 * One `allowed-tools` entry as an approval rule: a tool (`Read`, `edit_file`) or a command
 * (`Bash(git add:*)`, `run_command(npm test)`); a reason instead when cairn's rules cannot say it
 * (a tool for some paths only).
 */
function allowRule(entry: string): Rule | string {
  const match = /^([\w-]+)(?:\((.*)\))?$/.exec(entry.trim());
  if (!match) return `allowed-tools: ${entry} is not a tool name, nor Tool(pattern)`;
  const tool = cairnToolName(match[1] ?? "");
  const pattern = match[2]?.trim();
  if (!pattern || pattern === "*") return { action: "allow", tool };
  if (tool !== "run_command")
    return `allowed-tools: ${entry} was left out: cairn's rules allow a tool for all it touches, not for some paths or sites only`;
  // `git add:*` and `git add *` are "git add, with anything after it": what a command rule means.
  const command = pattern.replace(/(?::\*|\s+\*)$/, "").trim();
  if (splitCommandLine(command)?.length !== 1)
    return `allowed-tools: ${entry} was left out: expected one command, such as Bash(git add:*)`;
  return { action: "allow", command };
}

/** A model named in the front matter: a role, or a provider/model id; Claude Code's bare names are not cairn's. */
function modelProblem(model: string): string | undefined {
  if (["default", "cheap", "strong", "review"].includes(model)) return undefined;
  try {
    parseModelId(model);
    return undefined;
  } catch {
    return `model: ${model} is not a role (cheap, strong…) nor provider/model; the session's model is used`;
  }
}

/** A command from its file, and what in it could not be used (said, the rest still works). */
async function readCommand(
  name: string,
  text: string,
  place: { scope: ExtensionScope; file: string },
): Promise<{ command: CustomCommand; problems: string[] }> {
  const found = await readFrontMatter(text);
  const parsed = frontMatterSchema.safeParse(found?.data ?? {}, { reportInput: true });
  if (!parsed.success)
    throw new Error(
      parsed.error.issues
        .map((issue) => `${issue.path.join(".") || "front matter"}: ${describeIssue(issue)}`)
        .join("; "),
    );
  const body = (found ? found.body : text).trim();
  if (!body) throw new Error("the body is empty: write the prompt the command sends");
  const data = parsed.data;
  const rules = (data["allowed-tools"] ?? []).map(allowRule);
  const problems = rules.filter((rule): rule is string => typeof rule === "string");
  const badModel = data.model && modelProblem(data.model);
  if (badModel) problems.push(badModel);
  const command: CustomCommand = {
    name,
    description: data.description?.trim() || firstLine(body, 80),
    ...(data["argument-hint"] ? { argumentHint: data["argument-hint"] } : {}),
    ...(data.model && !badModel ? { model: data.model } : {}),
    allows: rules.filter((rule): rule is Rule => typeof rule !== "string"),
    body,
    scope: place.scope,
    file: place.file,
  };
  return { command, problems: problems.map((problem) => `${place.file}: ${problem}`) };
}

/**
 * What a project's command asks for beyond the person's settings, as the config's keys are judged
 * (config/trust/declarations.ts): to stand in for the person's own command of that name, to let
 * tools run without asking (`allowed-tools`), or to send its turn to a provider their key does not
 * already go to. Its prompt is not among them: it is words the person chose to send by typing
 * `/name`, as if they had typed them.
 */
function commandWidening(
  command: CustomCommand,
  replaces: CustomCommand | undefined,
  provider: ProviderName | undefined,
): { replace?: WorkspaceSetting; allows?: WorkspaceSetting; model?: WorkspaceSetting } {
  const { name, file } = command;
  const key = `commands.${name}`;
  const widening: { replace?: WorkspaceSetting; allows?: WorkspaceSetting; model?: WorkspaceSetting } = {};
  if (replaces?.scope === "user")
    widening.replace = { file, key, asks: `replace your command /${name}`, value: command.body };
  if (command.allows.length > 0)
    widening.allows = {
      file,
      key: `${key}.allowed-tools`,
      asks: `let /${name} run ${command.allows.map((rule) => rule.command ?? rule.tool).join(", ")} without asking`,
      value: command.allows,
    };
  if (command.model && goesElsewhere(command.model, provider))
    widening.model = {
      file,
      key: `${key}.model`,
      asks: `run /${name} on ${command.model}, another provider than ${provider ?? "yours"}`,
      value: command.model,
    };
  return widening;
}

/**
 * The person's commands, then the project's (`~/.claude/commands`, `~/.config/cairn/commands`,
 * `.claude/commands`, `.cairn/commands`): a later one of the same name replaces an earlier one.
 * A file that cannot be read is reported and skipped; the others still load. The project's came
 * with the repository: unless `trust` says the folder is trusted, one that would replace the
 * person's own is left out, and its allowed tools and a model of another provider are dropped
 * (it asks before each tool and runs on the session's model), as `widening` says.
 */
export async function loadCustomCommands(
  workspace: string,
  env: NodeJS.ProcessEnv,
  trust: CarriedTrust,
): Promise<CommandCatalog> {
  const commands = new Map<string, CustomCommand>();
  const problems: string[] = [];
  const widening: WorkspaceSetting[] = [];
  const home = env.HOME || os.homedir();
  const provider = chosenProvider(trust.config, env);
  for (const { scope, dir } of extensionFolders("commands", workspace, env)) {
    for (const entry of await entriesOf(dir)) {
      if (entry.isDirectory || !entry.name.endsWith(".md")) continue;
      const file = path.join(dir, entry.name);
      const shown = shownPath(file, workspace, home);
      const name = entry.name.slice(0, -".md".length).toLowerCase();
      if (!COMMAND_NAME.test(name)) {
        problems.push(`${shown}: the file name is the command's name: letters, digits, '-', '_', '.' or ':'`);
        continue;
      }
      try {
        const read = await readCommand(name, await readFile(file, "utf8"), { scope, file: shown });
        let { command } = read;
        problems.push(...read.problems);
        if (scope === "project") {
          const asks = commandWidening(command, commands.get(name), provider);
          widening.push(
            ...[asks.replace, asks.allows, asks.model].filter((setting) => setting !== undefined),
          );
          if (!trust.trusted) {
            if (asks.replace) continue;
            const { model, ...rest } = command;
            command = { ...rest, allows: [], ...(model && !asks.model ? { model } : {}) };
          }
        }
        commands.set(name, command);
      } catch (error) {
        problems.push(`${shown}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }
  return { commands, problems, widening };
}

/** The arguments as the shell would split them: words, and quoted phrases as one. */
function splitArguments(args: string): string[] {
  return [...args.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3] ?? "");
}

/**
 * The prompt a command sends for `/name args`: `$ARGUMENTS` is everything after the name,
 * `$1`, `$2`… each argument. A command that uses neither gets the arguments after its prompt,
 * so none is lost.
 */
export function expandCommand(command: Pick<CustomCommand, "body">, args: string): string {
  const words = splitArguments(args);
  const uses = /\$(ARGUMENTS|\d+)/.test(command.body);
  const expanded = command.body.replace(/\$(ARGUMENTS|\d+)/g, (_, which: string) =>
    which === "ARGUMENTS" ? args : (words[Number(which) - 1] ?? ""),
  );
  return uses || !args.trim() ? expanded : `${expanded}\n\nARGUMENTS: ${args.trim()}`;
}

/** `/name args` when `name` is one of the catalog's commands; undefined for any other text. */
export function commandCall(
  text: string,
  catalog: Pick<CommandCatalog, "commands">,
): { command: CustomCommand; args: string } | undefined {
  const match = /^\/(\S+)\s*([\s\S]*)$/.exec(text.trim());
  const command = match && catalog.commands.get((match[1] ?? "").toLowerCase());
  return command ? { command, args: (match?.[2] ?? "").trim() } : undefined;
}
