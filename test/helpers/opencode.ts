import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { scaled } from "./timeScale.js";

/** The opencode release the delegation test runs. */
export const OPENCODE_VERSION = "1.18.33";

/**
 * Where it is installed: beside the project's own packages, kept between runs. Not a dependency
 * of the project: opencode-ai lists a binary package for every platform, and a lock file must
 * name them all for `npm ci`, while a registry may carry only some of them.
 */
const INSTALL_DIR = fileURLToPath(
  new URL(`../../node_modules/.cache/opencode-ai-${OPENCODE_VERSION}`, import.meta.url),
);

/** The binary of the platform package npm picked for this machine; its postinstall is not needed. */
function binaryIn(dir: string): string | undefined {
  const require = createRequire(path.join(dir, "node_modules", "index.js"));
  const platform = process.platform === "win32" ? "windows" : process.platform;
  for (const name of [
    `opencode-${platform}-${process.arch}`,
    `opencode-${platform}-${process.arch}-baseline`,
  ]) {
    try {
      const binary = path.join(path.dirname(require.resolve(`${name}/package.json`)), "bin", "opencode");
      if (existsSync(binary)) return binary;
    } catch {
      // Not the build npm installed here; try the next.
    }
  }
  return undefined;
}

/**
 * The real opencode CLI, installed from npm with npm itself the first time a test needs it (the
 * test set-up's only network use, the npm registry), then reused.
 */
export async function installOpencode(): Promise<string> {
  const found = binaryIn(INSTALL_DIR);
  if (found) return found;
  await promisify(execFile)(
    "npm",
    [
      "install",
      "--prefix",
      INSTALL_DIR,
      "--no-save",
      "--no-package-lock",
      "--no-audit",
      "--no-fund",
      `opencode-ai@${OPENCODE_VERSION}`,
    ],
    { timeout: scaled(300_000) },
  );
  const installed = binaryIn(INSTALL_DIR);
  if (!installed)
    throw new Error(
      `npm installed opencode-ai@${OPENCODE_VERSION} but no binary for ${process.platform}-${process.arch}`,
    );
  return installed;
}
