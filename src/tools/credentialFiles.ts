import { type ResolvedPath, resolveInWorkspace } from "../safety/paths.js";
import { ToolError } from "./toolError.js";
import type { ToolContext } from "./types.js";

/**
 * The file tools see git's config files as the sandbox shows them to commands
 * (docs/security.md#sandbox), by real path, so a link to `.git/config` or a path through `../`
 * reads the same: a config that holds a credential (a token in a remote's URL, an extra header
 * that authorizes) is read as its copy without it, and is not written, as commands cannot write
 * it either.
 */

/** The file a tool reads for this real path: a git config's copy without its credentials, else itself. */
export function readable(ctx: Pick<ToolContext, "secrets">, absolute: string): string {
  return ctx.secrets?.shown(absolute) ?? absolute;
}

/** Whether the tools read this real path as a copy without credentials. */
export function holdsGitCredentials(ctx: Pick<ToolContext, "secrets">, absolute: string): boolean {
  return readable(ctx, absolute) !== absolute;
}

/**
 * A path the model gave for writing, resolved as any write is, and refused when it is a git
 * config file that holds a credential: the model has only seen it without the credential, and
 * writing that back would lose it.
 */
export function resolveWritable(ctx: ToolContext, requested: string): ResolvedPath {
  const resolved = resolveInWorkspace(ctx, requested, "write");
  if (holdsGitCredentials(ctx, resolved.absolute)) {
    throw new ToolError(
      `Refused: ${resolved.display} is a git config file that holds credentials; cairn shows it without ` +
        "them, and only the user changes it.",
    );
  }
  return resolved;
}
