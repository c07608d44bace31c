import { readFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import type { Rule } from "../config/schema.js";
import type { WorkspaceAsk } from "../config/workspaceTrust.js";
import { parseModelId } from "../model/providers.js";
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
  widening: WorkspaceAsk[];
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

interface Judged {
  command: CustomCommand;
  problems: string[];
  widening: WorkspaceAsk[];
}

/**
 * A command from its file. A project's command came with the repository: until the folder is
 * trusted, it may not let tools run without asking, nor send the prompt to another provider
 * than the person's; what it asked for is named (`widening`) and left out.
 */
async function readCommand(
  name: string,
  text: string,
  place: { scope: ExtensionScope; file: string },
  trust: CommandTrust,
): Promise<Judged> {
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
  const problems: string[] = [];
  const widening: WorkspaceAsk[] = [];
  const rules = (data["allowed-tools"] ?? []).map(allowRule);
  let allows = rules.filter((rule): rule is Rule => typeof rule !== "string");
  problems.push(...rules.filter((rule): rule is string => typeof rule === "string"));
  let model = data.model;
  const badModel = model && modelProblem(model);
  if (badModel) {
    problems.push(badModel);
    model = undefined;
  }
  const project = place.scope === "project" && !trust.trusted;
  if (project && allows.length > 0) {
    widening.push({
      file: place.file,
      key: `commands.${name}.allowed-tools`,
      asks: `let /${name} run ${allows.map((rule) => rule.command ?? rule.tool).join(", ")} without asking`,
      value: data["allowed-tools"],
    });
    allows = [];
  }
  const provider = model?.includes("/") ? parseModelId(model).provider : undefined;
  if (project && model && provider && provider !== trust.provider) {
    widening.push({
      file: place.file,
      key: `commands.${name}.model`,
      asks: `run /${name} on ${model}, another provider than ${trust.provider ?? "yours"}`,
      value: model,
    });
    model = undefined;
  }
  const command: CustomCommand = {
    name,
    description: data.description?.trim() || firstLine(body, 80),
    ...(data["argument-hint"] ? { argumentHint: data["argument-hint"] } : {}),
    ...(model ? { model } : {}),
    allows,
    body,
    scope: place.scope,
    file: place.file,
  };
  return { command, problems: problems.map((problem) => `${place.file}: ${problem}`), widening };
}

/** Whether the project's commands may widen what the person allows, and the provider the person's model goes to. */
export interface CommandTrust {
  trusted: boolean;
  provider?: string | undefined;
}

/**
 * The person's commands, then the project's (`~/.claude/commands`, `~/.config/cairn/commands`,
 * `.claude/commands`, `.cairn/commands`): a later one of the same name replaces an earlier one.
 * A file that cannot be read is reported and skipped; the others still load.
 */
export async function loadCustomCommands(
  workspace: string,
  env: NodeJS.ProcessEnv,
  trust: CommandTrust,
): Promise<CommandCatalog> {
  const commands = new Map<string, CustomCommand>();
  const problems: string[] = [];
  const widening: WorkspaceAsk[] = [];
  const home = env.HOME || os.homedir();
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
        const judged = await readCommand(name, await readFile(file, "utf8"), { scope, file: shown }, trust);
        commands.set(name, judged.command);
        problems.push(...judged.problems);
        widening.push(...judged.widening);
        // Said until folder trust names it in its own question (see trust.ts).
        for (const ask of judged.widening)
          problems.push(`${ask.file}: left out until the folder is trusted: ${ask.asks}`);
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
