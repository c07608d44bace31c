import os from "node:os";
import path from "node:path";
import { homePath } from "../platform/text.js";

/** Where cairn keeps the person's settings and data, and where a workspace keeps its own. */

export function homeDir(env: NodeJS.ProcessEnv): string {
  return env.HOME || os.homedir();
}

/** XDG base directory: the variable when it holds an absolute path (as the spec requires), else the fallback. */
function xdgDir(env: NodeJS.ProcessEnv, variable: string, fallback: string): string {
  const value = env[variable];
  return value && path.isAbsolute(value) ? value : path.join(homeDir(env), fallback);
}

/** `$XDG_CONFIG_HOME/cairn`: the person's own settings. */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(xdgDir(env, "XDG_CONFIG_HOME", ".config"), "cairn");
}

export function globalConfigFile(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(configDir(env), "config.yaml");
}

/** The project's config file: the workspace's own settings, which apply in full once the folder is trusted. */
export function projectConfigFile(workspace: string): string {
  return path.join(workspace, ".cairn", "config.yaml");
}

export function dataDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(xdgDir(env, "XDG_DATA_HOME", path.join(".local", "share")), "cairn");
}

/** A file as the person would type it: `~/.config/cairn/config.yaml`. */
export function displayed(file: string, env: NodeJS.ProcessEnv): string {
  return homePath(file, homeDir(env));
}
