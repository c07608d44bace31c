import { realpathSync } from "node:fs";
import path from "node:path";
import { ConfigError } from "../platform/errors.js";
import { isInside } from "../platform/text.js";
import { ApiError } from "./apiError.js";

function realFolder(folder: string): string | undefined {
  try {
    return realpathSync(folder);
  } catch {
    return undefined;
  }
}

/**
 * Where sessions may be started over HTTP: the folder the server was started in, the folders of
 * config `server.workspaces`, and anything below them. A client can name no other folder, so a
 * token that leaks cannot point the agent at the rest of the disk.
 */
export class Workspaces {
  /** Real paths, the start folder first. */
  readonly roots: string[];
  private readonly start: string;

  constructor(start: string, configured: readonly string[], home: string) {
    this.start = realpathSync(start);
    const roots = [this.start];
    for (const entry of configured) {
      const expanded = entry === "~" || entry.startsWith("~/") ? path.join(home, entry.slice(1)) : entry;
      const real = realFolder(path.resolve(this.start, expanded));
      if (!real)
        throw new ConfigError(
          `server.workspaces: ${entry} does not exist (resolved from ${this.start}); create it or remove it from the config.`,
        );
      if (!roots.includes(real)) roots.push(real);
    }
    this.roots = roots;
  }

  /** The real path of the workspace a request names (the start folder when it names none), if allowed. */
  resolve(requested: string | undefined): string {
    if (requested === undefined) return this.start;
    const real = realFolder(path.resolve(this.start, requested));
    if (!real) throw new ApiError(400, `workspace: ${requested} does not exist on the server.`);
    if (!this.roots.some((root) => isInside(root, real)))
      throw new ApiError(
        403,
        `workspace: ${real} is not one this server was started for (${this.roots.join(", ")}); ` +
          "start cairn serve there, or add it to server.workspaces in the config.",
      );
    return real;
  }
}
