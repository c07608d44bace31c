/**
 * SEAM for folder trust (issue 23, built on the `trust` branch, not yet on main): there a
 * `WorkspaceTrust` decides whether what a workspace carries may widen what the person allows, and
 * each carried thing names what it would widen as a `WorkspaceSetting` {file, key, asks, value},
 * which the trust question lists and the trust hash covers. This is the same shape, so when it
 * lands the project's commands plug into its `workspaceContributions`, and the config's `hooks`
 * key gets its declaration (workspace hooks widen), replacing `setAsideHooks` in load.ts.
 * Skills need neither: they are instructions, like AGENTS.md, and what they run is approved as
 * any command is.
 */
export interface WorkspaceAsk {
  /** The file that carries it, as the person finds it from the workspace: `.cairn/commands/ship.md`. */
  file: string;
  /** Where in it: `commands.ship.allowed-tools`, `hooks.PreToolUse[0]`. */
  key: string;
  /** What it asks for, in plain words: `let /ship run git push without asking`. */
  asks: string;
  /** The value itself, for the hash of what was trusted. */
  value: unknown;
}

/**
 * Until folder trust lands, a workspace is not trusted: what its files carry may narrow what
 * the person allows but never widen it (its commands' allowed tools, its hooks).
 */
export const WORKSPACE_TRUSTED_BEFORE_TRUST_LANDS = false;
