import { readFile } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { writeFileAtomic } from "../../platform/atomicFile.js";
import { ConfigError } from "../../platform/errors.js";
import { describeIssue } from "../../platform/issues.js";
import { configDir, displayed } from "../paths.js";
import { type Rule, ruleSchema } from "../schema.js";

/**
 * What the person said about each folder, kept in their own config folder and never in the
 * workspace (a repository cannot ship its own trust): whether they trust it, with the hash of the
 * settings they trusted, and the rules they allowed "always in this workspace".
 */
const folderSchema = z.object({
  trusted: z.object({ at: z.string(), hash: z.string() }).optional(),
  rules: z.array(ruleSchema).optional(),
});

const foldersSchema = z.object({ folders: z.record(z.string(), folderSchema).default({}) });

type FolderEntry = z.infer<typeof folderSchema>;
export type Folders = Record<string, FolderEntry>;

/** `$XDG_CONFIG_HOME/cairn/folders.json`. */
export function foldersFile(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(configDir(env), "folders.json");
}

/** Every folder the person said something about; none when the file is not there yet. */
export async function readFolders(env: NodeJS.ProcessEnv = process.env): Promise<Folders> {
  const file = foldersFile(env);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw new ConfigError(`${displayed(file, env)}: cannot be read (${(error as Error).message})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(
      `${displayed(file, env)}: invalid JSON (${(error as Error).message}); fix it, or remove it to trust no folder`,
    );
  }
  const parsed = foldersSchema.safeParse(json, { reportInput: true });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`${displayed(file, env)}: ${issue.path.join(".")}: ${describeIssue(issue)}`);
  }
  return parsed.data.folders;
}

/** Changes one folder's entry (none: forgotten), read and written whole so the others stay as they were. */
async function updateFolder(
  folder: string,
  env: NodeJS.ProcessEnv,
  change: (entry: FolderEntry) => FolderEntry | undefined,
): Promise<void> {
  const folders = await readFolders(env);
  const entry = change(folders[folder] ?? {});
  if (entry && (entry.trusted || entry.rules?.length)) folders[folder] = entry;
  else delete folders[folder];
  const sorted = Object.fromEntries(Object.entries(folders).sort(([a], [b]) => a.localeCompare(b)));
  await writeFileAtomic(foldersFile(env), Buffer.from(`${JSON.stringify({ folders: sorted }, null, 2)}\n`));
}

/** Trusts a folder as long as what its files ask for hashes to `hash`. */
export function trustFolder(
  folder: string,
  hash: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  return updateFolder(folder, env, (entry) => ({
    ...entry,
    trusted: { at: new Date().toISOString(), hash },
  }));
}

/** Forgets that a folder was trusted (its saved rules stay: they were the person's own answers); false when it was not. */
export async function revokeFolder(folder: string, env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  const had = Boolean((await readFolders(env))[folder]?.trusted);
  if (had) await updateFolder(folder, env, ({ trusted: _, ...rest }) => rest);
  return had;
}

/** Adds rules the person allowed "always in this workspace" to the folder's own. */
export function saveFolderRules(
  folder: string,
  rules: Rule[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  return updateFolder(folder, env, (entry) => ({ ...entry, rules: [...(entry.rules ?? []), ...rules] }));
}

/** Takes a rule out of the folder's own (the one `cairn mcp add` saved, when the server is removed); false when absent. */
export async function removeFolderRule(
  folder: string,
  rule: Rule,
  env: NodeJS.ProcessEnv = process.env,
): Promise<boolean> {
  const keyed = (value: Rule) => JSON.stringify(Object.entries(value).sort(([a], [b]) => a.localeCompare(b)));
  const same = (other: Rule) => keyed(other) === keyed(rule);
  const had = (await readFolders(env))[folder]?.rules?.some(same) ?? false;
  if (had)
    await updateFolder(folder, env, (entry) => ({ ...entry, rules: entry.rules?.filter((r) => !same(r)) }));
  return had;
}
