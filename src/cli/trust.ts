import { existsSync } from "node:fs";
import path from "node:path";
import { workspaceContributions } from "../agent/conversation.js";
import { globalConfig, globalConfigFile, loadConfig } from "../config/load.js";
import { listedInConfig, realFolder, type WorkspaceTrust } from "../config/trust/decide.js";
import { foldersFile, readFolders, revokeFolder, trustFolder } from "../config/trust/store.js";
import { renderTable } from "../platform/table.js";
import { homePath } from "../platform/text.js";
import type { CommandIo } from "./sessions.js";

export interface TrustCommandOptions {
  list?: boolean;
  revoke?: string;
  json?: boolean;
}

/** A folder's trust as a run there would decide it headless, with what its files ask for now. */
async function currentTrust(folder: string): Promise<WorkspaceTrust> {
  const { trust } = await loadConfig({
    cwd: folder,
    trust: { defaultApproval: "ask", contributions: workspaceContributions(folder, process.env) },
  });
  return trust;
}

function settingLines(trust: WorkspaceTrust): string[] {
  return trust.widening.map((setting) => `  ${setting.file} ${setting.key}: ${setting.asks}`);
}

/** `cairn trust [dir]`: trusts the folder as its files are now; a change that asks for more is asked about again. */
async function trust(dir: string, io: CommandIo): Promise<number> {
  const folder = realFolder(path.resolve(dir));
  const current = await currentTrust(folder);
  await trustFolder(folder, current.hash);
  const lines = [`Trusted ${homePath(folder)}.`];
  if (current.widening.length === 0)
    lines.push(
      "Its files ask for nothing beyond your own settings now; if they come to (a git pull, say), cairn asks again.",
    );
  else
    lines.push(
      "What its files ask for beyond your own settings now applies:",
      ...settingLines(current),
      "If they come to ask for anything else (a git pull, say), cairn asks again.",
    );
  io.out.write(`${lines.join("\n")}\n`);
  return 0;
}

/** `cairn trust --revoke <dir>`: the folder's files may only narrow again. */
async function revoke(dir: string, io: CommandIo): Promise<number> {
  const folder = realFolder(path.resolve(dir));
  const had = await revokeFolder(folder);
  const listed = listedInConfig(folder, (await globalConfig()).trusted_folders, process.env);
  const still = listed
    ? ` It is still trusted by trusted_folders in ${homePath(globalConfigFile())}: remove it there.`
    : "";
  if (!had) {
    io.err.write(`cairn: ${homePath(folder)} was not trusted with cairn trust.${still}\n`);
    return 1;
  }
  io.out.write(
    `No longer trusting ${homePath(folder)}: what its files ask for beyond your settings is left out again.${still}\n`,
  );
  return 0;
}

interface ListedFolder {
  folder: string;
  since: string | null;
  status: "trusted" | "changed" | "missing" | "listed";
  /** For a changed folder: what its files ask for now. */
  asks?: string[];
}

/** `cairn trust --list`: the folders trusted, since when, and whether their files still ask for what was trusted. */
async function list(options: TrustCommandOptions, io: CommandIo): Promise<number> {
  const rows: ListedFolder[] = [];
  for (const [folder, entry] of Object.entries(await readFolders())) {
    if (!entry.trusted) continue;
    if (!existsSync(folder)) {
      rows.push({ folder, since: entry.trusted.at, status: "missing" });
      continue;
    }
    const current = await currentTrust(folder);
    rows.push(
      current.by === "stored"
        ? { folder, since: entry.trusted.at, status: "trusted" }
        : {
            folder,
            since: entry.trusted.at,
            status: "changed",
            asks: current.widening.map((s) => `${s.file} ${s.key}: ${s.asks}`),
          },
    );
  }
  for (const folder of (await globalConfig()).trusted_folders)
    rows.push({ folder, since: null, status: "listed" });
  if (options.json) {
    io.out.write(`${JSON.stringify(rows, null, 2)}\n`);
    return 0;
  }
  if (rows.length === 0) {
    io.out.write("No folder is trusted. cairn trust [dir] trusts one.\n");
    return 0;
  }
  const STATUS = {
    trusted: "trusted",
    changed: "its files changed since: asks again",
    missing: "the folder is gone",
    listed: `listed in trusted_folders`,
  };
  io.out.write(
    `${renderTable(
      [
        { header: "folder", cell: (row: ListedFolder) => homePath(row.folder) },
        { header: "since", cell: (row) => row.since?.slice(0, 10) ?? "-" },
        { header: "status", cell: (row) => STATUS[row.status] },
      ],
      rows,
    )}\n(kept in ${homePath(foldersFile())} and ${homePath(globalConfigFile())})\n`,
  );
  return 0;
}

/** `cairn trust [dir] | --list | --revoke <dir>`. */
export async function trustCommand(
  dir: string | undefined,
  options: TrustCommandOptions,
  io: CommandIo,
): Promise<number> {
  if (options.list) return list(options, io);
  if (options.revoke) return revoke(options.revoke, io);
  return trust(dir ?? process.cwd(), io);
}
