import { tmpdir } from "node:os";
import path from "node:path";
import { type Arg, GLOB, type Scope } from "../platform/shell/expand.js";

/** Whether `child` is `parent` or lies below it. */
export function contains(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

function strictlyContains(parent: string, child: string): boolean {
  return parent !== child && contains(parent, child);
}

/**
 * The folders a command's targets are judged against: the workspace and scratch folders it may
 * change freely, and the home folder it may not, even where home lies in a scratch folder.
 */
export class SafePlaces {
  readonly workspace: string;
  readonly home: string;
  private readonly scratchDirs: string[];

  /** Scratch folders default to the OS temp folder and /tmp. */
  constructor(options: { workspace: string; home: string; scratchDirs?: string[] }) {
    this.workspace = path.resolve(options.workspace);
    this.home = path.resolve(options.home);
    this.scratchDirs = (options.scratchDirs ?? [tmpdir(), "/tmp"]).map((dir) => path.resolve(dir));
  }

  /**
   * Why a recursive operation on this path reaches beyond the workspace, or undefined when it
   * stays strictly inside the workspace (or inside a scratch folder). The workspace itself is
   * fine only when `workspaceAllowed`.
   */
  recursiveTargetProblem(arg: Arg, scope: Scope, workspaceAllowed: boolean): string | undefined {
    if (arg.unknown.length > 0) {
      const unknown = arg.unknown.join(", ");
      return arg.text === unknown
        ? `${arg.text}, a path fixed only when it runs`
        : `${arg.text}, a path that depends on ${unknown}, fixed only when it runs`;
    }
    if (!path.isAbsolute(arg.text) && scope.cwd === undefined) {
      return `${arg.text}, relative to a folder known only when it runs`;
    }
    // Resolved from the root or the cwd segment by segment, so that a pattern stays visible.
    const segments = arg.text.split("/");
    const root = path.isAbsolute(arg.text) ? "/" : (scope.cwd ?? "/");
    const shown = path.resolve(root, ...segments);
    let resolved = shown;
    if (arg.glob) {
      // Hidden-file patterns such as `.*` match `..` in many shells.
      if (segments.some((segment) => GLOB.test(segment) && /^[.[]/.test(segment))) {
        return `${shown}, a pattern that can match ".."`;
      }
      const base = path.resolve(
        root,
        ...segments.slice(
          0,
          segments.findIndex((s) => GLOB.test(s)),
        ),
      );
      if (strictlyContains(base, this.workspace)) {
        return `${shown}, a pattern that can match the workspace or a folder containing it`;
      }
      // Whatever the pattern matches sits where a plain name in its place would.
      resolved = path.resolve(root, ...segments.map((segment) => (GLOB.test(segment) ? "x" : segment)));
    }
    if (resolved === this.workspace)
      return workspaceAllowed ? undefined : `the workspace itself (${resolved})`;
    if (contains(resolved, this.workspace)) return `${this.describe(shown)}, which contains the workspace`;
    if (this.isSafePlace(resolved)) return undefined;
    return `${this.describe(shown)}, outside the workspace`;
  }

  describe(absolute: string): string {
    if (absolute === "/") return "the whole filesystem (/)";
    if (absolute === this.home) return `your home folder (${absolute})`;
    return absolute;
  }

  /** Inside the workspace, or below a scratch folder but not in or above home (CI often puts HOME in /tmp). */
  isSafePlace(absolute: string): boolean {
    if (contains(this.workspace, absolute)) return true;
    if (contains(this.home, absolute) || contains(absolute, this.home)) return false;
    return this.scratchDirs.some((dir) => strictlyContains(dir, absolute));
  }
}
