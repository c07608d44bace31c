import { realpathSync } from "node:fs";
import path from "node:path";
import { isInside } from "../platform/text.js";

/**
 * A path the model gave that cannot be used: outside the workspace, or malformed. The model is
 * told, and can correct it, as with a tool's own errors.
 */
export class PathError extends Error {
  override name = "PathError";
}

export interface Confinement {
  workspace: string;
  extraRoots: string[];
}

export interface ResolvedPath {
  /** Absolute real path (symlinks resolved as far as the path exists). */
  absolute: string;
  /** Path relative to the workspace, `/`-separated, for messages and events. */
  display: string;
}

/**
 * A path's real location, so a link to `.env` counts as `.env`; the path itself when it does not
 * exist. One realpath(3) call: Node's own realpathSync takes an lstat per component of the path,
 * on every file a tool call names.
 */
export function realPath(file: string): string {
  try {
    return realpathSync.native(file);
  } catch {
    return file;
  }
}

/**
 * Resolves the longest existing prefix with realpath, so a symlink anywhere in the path that
 * points outside is caught even when the final file does not exist yet. realpath(3) itself, one
 * call: Node's own realpathSync takes an lstat per component, on every path every tool call names.
 */
function realpathAllowingMissing(absolute: string): string {
  const missing: string[] = [];
  let current = absolute;
  for (;;) {
    try {
      return path.join(realpathSync.native(current), ...missing.reverse());
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "ENOENT" && code !== "ENOTDIR") throw error;
      const parent = path.dirname(current);
      if (parent === current) return absolute;
      missing.push(path.basename(current));
      current = parent;
    }
  }
}

/**
 * Maps a path a model gave to a real path inside the workspace (or an extra root), or refuses.
 * Writes into `.git` internals are refused: a model must change history through git, not by
 * editing the object store or config. So are writes into the workspace's `.cairn`.
 */
export function resolveInWorkspace(
  confinement: Confinement,
  requested: string,
  access: "read" | "write",
): ResolvedPath {
  if (requested.includes("\0")) throw new PathError(`Invalid path ${JSON.stringify(requested)}.`);
  const absolute = realpathAllowingMissing(path.resolve(confinement.workspace, requested));
  const roots = [confinement.workspace, ...confinement.extraRoots];
  const root = roots.find((candidate) => isInside(candidate, absolute));
  if (!root) {
    throw new PathError(
      `Refused: ${requested} is outside the workspace (${confinement.workspace}). ` +
        "Use a path inside it, or add the folder to workspace.extra_roots in the config.",
    );
  }
  if (access === "write") {
    const rel = path.relative(root, absolute).split(path.sep);
    if (rel.includes(".git")) {
      throw new PathError(
        `Refused: ${requested} is inside .git; use the git tools to change the repository.`,
      );
    }
    // The approval rules and sandbox settings of later sessions are the person's to change.
    if (root === confinement.workspace && rel[0] === ".cairn") {
      throw new PathError(
        `Refused: ${requested} is inside .cairn, cairn's own configuration and reports; only the user changes them.`,
      );
    }
  }
  const display =
    root === confinement.workspace
      ? path.relative(root, absolute).split(path.sep).join("/") || "."
      : absolute;
  return { absolute, display };
}
