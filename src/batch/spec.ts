import { readFile } from "node:fs/promises";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { ConfigError } from "../platform/errors.js";
import { describeIssue, expectation } from "../platform/issues.js";
import { closest } from "../platform/text.js";

/** One task of a batch, as written in the tasks file (docs/batch.md). */
const taskSpecSchema = z.strictObject({
  id: z.string().trim().min(1),
  /** A folder (a git repository or a plain one), or a git URL. */
  repo: z.string().trim().min(1),
  /** The commit, branch or tag a git repository is checked out at (default: its HEAD). */
  ref: z.string().trim().min(1).optional(),
  task: z.string().trim().min(1),
  mode: z.enum(["do", "run"]).default("run"),
  verify: z.string().trim().min(1).optional(),
  model: z.string().trim().min(1).optional(),
  /** `--agent`: the task carried out by another agent (`agent:codex`, a named agent, `llm:<profile>`). */
  agent: z.string().trim().min(1).optional(),
  /**
   * How a git repository is copied for the task: a worktree (the default), or `clone`, a
   * repository of its own holding `ref` and its history alone, so that the task cannot reach
   * later commits (an eval's instance, whose fix is one of them).
   */
  isolation: z.enum(["worktree", "clone"]).optional(),
  /**
   * Run in the task's copy before cairn starts (`npm ci`, a virtualenv); what it leaves there
   * that git does not ignore is not part of the task's change.
   */
  setup: z.string().trim().min(1).optional(),
  max_cost: z.number().positive().optional(),
  /** Seconds. */
  timeout: z.number().positive().optional(),
  /**
   * The repository's own files (`.cairn/config.yaml`, `.mcp.json`, agents) apply in full, as
   * `--trust-workspace` does; without it they may only narrow (docs/security.md#trust), unless
   * the config of the machine that runs the task lists the repository in `trusted_folders`.
   */
  trust_workspace: z.boolean().optional(),
});

export type TaskSpec = z.infer<typeof taskSpecSchema>;

/**
 * Results are keyed by task and model (and agent): the same task run with two models, or by two
 * agents, is two results.
 */
export function taskKey(spec: Pick<TaskSpec, "id" | "model" | "agent">): string {
  const by = spec.agent ? `${spec.agent}${spec.model ? ` (${spec.model})` : ""}` : (spec.model ?? "default");
  return `${spec.id} @ ${by}`;
}

/** A repository given as a URL rather than a folder: cloned once into the cache, then checked out. */
export function isGitUrl(repo: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(repo) || /^[\w.-]+@[\w.-]+:/.test(repo);
}

/** What one entry of a file says is wrong, worded for the person who wrote it. */
function problemsOf(schema: z.ZodObject, entry: unknown): string[] {
  const parsed = schema.safeParse(entry, { reportInput: true });
  if (parsed.success) return [];
  const known = Object.keys(schema.shape);
  return parsed.error.issues.map((issue) => {
    if (issue.code === "unrecognized_keys") {
      return issue.keys
        .map((key) => {
          const near = closest(key, known);
          return `unknown key \`${key}\`${near ? ` (did you mean \`${near}\`?)` : ""}`;
        })
        .join("; ");
    }
    const where = issue.path.length ? `\`${issue.path.join(".")}\`: ` : "";
    return `${where}${describeIssue(issue)}`;
  });
}

/** One item of a list file, and where it is, for messages. */
interface Entry {
  where: string;
  value: unknown;
}

function entriesOf(file: string, text: string, what: string): Entry[] {
  const name = path.basename(file);
  if (/\.jsonl$/i.test(file)) {
    return text.split("\n").flatMap((line, i) => {
      if (!line.trim()) return [];
      try {
        return [{ where: `${name} line ${i + 1}`, value: JSON.parse(line) }];
      } catch (error) {
        throw new ConfigError(`${name} line ${i + 1}: not JSON (${(error as Error).message}).`);
      }
    });
  }
  let document: unknown;
  try {
    document = /\.json$/i.test(file) ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new ConfigError(`${name}: cannot be read: ${(error as Error).message}`);
  }
  const list =
    typeof document === "object" && document !== null && what in document
      ? (document as Record<string, unknown>)[what]
      : document;
  if (!Array.isArray(list)) {
    throw new ConfigError(
      `${name}: ${expectation(`a list of ${what} (or \`${what}:\` holding one)`, list)}.`,
    );
  }
  return list.map((value, i) => ({ where: `${name} item ${i + 1}`, value }));
}

/**
 * The items of a `.jsonl`, `.json` or `.yaml` file (a list, or a mapping holding one under `what`),
 * each checked against `schema`, all at once so that every mistake is reported together.
 */
export async function readEntries<Schema extends z.ZodObject>(
  file: string,
  schema: Schema,
  what: string,
): Promise<Array<{ where: string; value: z.infer<Schema> }>> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new ConfigError(`cannot read the ${what} file ${file}: ${(error as Error).message}`);
  }
  const entries = entriesOf(file, text, what);
  if (entries.length === 0) throw new ConfigError(`${path.basename(file)} holds no ${what}.`);
  const problems = entries.flatMap(({ where, value }) =>
    problemsOf(schema, value).map((p) => `${where}: ${p}`),
  );
  if (problems.length) {
    throw new ConfigError(`the ${what} file has problems:\n${problems.map((p) => `  ${p}`).join("\n")}`);
  }
  return entries.map(({ where, value }) => ({ where, value: schema.parse(value) }));
}

/** The tasks of a batch file; a folder given as `repo` is taken relative to the file. */
export async function loadTasks(file: string): Promise<TaskSpec[]> {
  const entries = await readEntries(file, taskSpecSchema, "tasks");
  const seen = new Set<string>();
  for (const { where, value } of entries) {
    const key = taskKey(value);
    if (seen.has(key)) throw new ConfigError(`${where}: the id ${JSON.stringify(value.id)} is used twice.`);
    seen.add(key);
  }
  const base = path.dirname(path.resolve(file));
  return entries.map(({ value: spec }) =>
    isGitUrl(spec.repo) ? spec : { ...spec, repo: path.resolve(base, spec.repo) },
  );
}
