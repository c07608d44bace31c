import { workspaceContributions } from "../agent/conversation.js";
import { loadConfig } from "../config/load.js";
import type { Config } from "../config/schema.js";
import type { WorkspaceTrust } from "../config/trust/decide.js";
import { warnUntrusted } from "../ui/trustNotice.js";
import type { CommandIo } from "./sessions.js";

/**
 * The config and folder trust a session started here would have, decided without asking (what
 * the person recorded or listed, no flag), with what an untrusted folder left out said on stderr:
 * for the commands that list what a session would load (`cairn agents`, `cairn skills`).
 */
export async function asSessionsSeeIt(
  cwd: string,
  configFile: string | undefined,
  env: NodeJS.ProcessEnv,
  io: CommandIo,
): Promise<{ config: Config; trust: WorkspaceTrust }> {
  const { config, trust } = await loadConfig({
    cwd,
    ...(configFile ? { configFile } : {}),
    env,
    trust: { contributions: workspaceContributions(cwd, env) },
  });
  warnUntrusted(trust, (line) => io.err.write(`cairn: ${line}\n`));
  return { config, trust };
}
