import * as childProcess from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { splitCommandLine } from "../../src/platform/shell/split.js";
import { hasSecretName, SECRET_NAME_PATHSPECS, SecretFiles } from "../../src/safety/secretFiles.js";
import { secretsPrintedByGit } from "../../src/safety/secretGit.js";
import { tempDir } from "../helpers/temp.js";

// Every git command the checks run, with what it printed.
vi.mock("node:child_process", async (original) => {
  const real = await original<typeof import("node:child_process")>();
  return { ...real, execFileSync: vi.fn(real.execFileSync) };
});

/**
 * How the git checks ask git about a repository: only for its secret-named files, which git
 * itself picks out, so a repository of many files costs little.
 */

let repo: string;
const NAMES = [
  ".env",
  ".envrc",
  "a/b/.ENV",
  "id_ed25519",
  "x/.git-credentials",
  "credentials",
  "aws/credentials-prod.json",
  "a/.pgpass",
  ".HTPASSWD",
  "y/.npmrc",
  ".pypirc",
  "z/.netrc",
  "t/state.tfstate.backup",
  "s/secrets",
  "s/secrets.enc",
  "k/a.p12",
  "k/a.pfx",
  "k/a.jks",
  "k/a.keystore",
  "k/a.KEY",
  "deep/x/y/Server.PEM",
  "keys/id_rsa_old",
  "sub/.env.local",
  "config/Secrets.YAML",
  "infra/prod.tfvars.json",
  "_netrc",
  // Not secret.
  ".env.example",
  "keys/id_rsa.pub",
  "src/secrets.ts",
  "src/a.ts",
  "README.md",
  "docs/credentials.md",
];

function git(cwd: string, ...args: string[]): string {
  return childProcess.execFileSync("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", ...args], {
    cwd,
    encoding: "utf8",
  });
}

beforeAll(async () => {
  repo = tempDir("cairn-secret-git-specs-");
  for (const name of NAMES) {
    await mkdir(path.dirname(path.join(repo, name)), { recursive: true });
    await writeFile(path.join(repo, name), "x\n");
  }
  git(repo, "init", "-q");
  git(repo, "add", "-A");
  git(repo, "commit", "-qm", "first");
});

describe("the pathspecs of secret file names", () => {
  it("match in git what hasSecretName matches, in any folder and case", () => {
    const all = git(repo, "ls-files", "-z").split("\0").filter(Boolean);
    const picked = git(repo, "ls-files", "-z", "--", ...SECRET_NAME_PATHSPECS)
      .split("\0")
      .filter(Boolean);
    const secret = all.filter((file) => hasSecretName(file)).sort();
    expect(secret).toEqual(NAMES.slice(0, NAMES.indexOf(".env.example")).sort());
    // git picks out at least those (hasSecretName then leaves out templates and public keys).
    expect(picked.filter((file) => hasSecretName(file)).sort()).toEqual(secret);
    expect(picked).not.toContain("src/a.ts");
    expect(picked).not.toContain("README.md");
  });

  it("let git list only the secret-named files when a command would print the tracked ones", () => {
    const run = vi.mocked(childProcess.execFileSync);
    run.mockClear();
    const found = secretsPrintedByGit(splitCommandLine("git log -p")![0]!, repo, new SecretFiles(repo));
    expect(found.map((file) => path.relative(repo, file)).sort()).toContain(".env");
    const listings = run.mock.calls.filter(([, args]) => (args as string[]).includes("ls-files"));
    expect(listings.length).toBeGreaterThan(0);
    for (const [index] of listings.entries()) {
      const printed = String(run.mock.results[run.mock.calls.indexOf(listings[index]!)]!.value);
      expect(printed).not.toContain("src/a.ts");
      expect(printed).not.toContain("README.md");
    }
  });
});
