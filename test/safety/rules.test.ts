import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load.js";
import { splitCommandLine } from "../../src/platform/shell/split.js";
import { isReadOnly, needsNetwork } from "../../src/safety/commandKinds.js";
import { grantsFor, RuleSet } from "../../src/safety/rules.js";
import { tempDir } from "../helpers/temp.js";

describe("read-only commands", () => {
  const part = (command: string) => splitCommandLine(command)![0]!;

  it.each([
    "ls -la src",
    "cat package.json",
    "grep -rn 'TODO' src",
    "rg --files",
    "git status --short",
    "git diff HEAD~1 -- src",
    "git log --oneline -20",
    "find . -name '*.ts' -newer package.json",
    "wc -l src/*.ts",
    "head -50 README.md",
    "sort names.txt",
  ])("%s only reads", (command) => {
    expect(isReadOnly(part(command))).toBe(true);
  });

  it.each([
    "cat ~/.aws/credentials",
    "cat /etc/shadow",
    "ls ../other-project",
    "grep -r key $HOME",
    "find . -exec rm {} +",
    "find . -delete",
    "sort -o sorted.txt names.txt",
    "rg --pre ./decode.sh secret",
    "git push",
    "git -c core.pager='sh -c evil' log",
    "git diff --output=patch.diff",
    "npm test",
    "sed -i s/a/b/ file",
    "env",
    "set",
  ])("%s does not", (command) => {
    expect(isReadOnly(part(command))).toBe(false);
  });

  it("counts a redirection into a file as writing", () => {
    expect(isReadOnly(part("ls > listing.txt"))).toBe(false);
  });
});

describe("commands that need the network", () => {
  it.each([
    "npm install",
    "npm ci --silent",
    "yarn",
    "pnpm add zod",
    "pip install -r requirements.txt",
    "python3 -m pip install requests",
    "cargo fetch",
    "go mod download",
    "git clone https://example.com/r.git",
    "git pull --rebase",
    "curl -sO https://example.com/x",
    "npx prettier --check .",
  ])("%s does", (command) => {
    expect(needsNetwork(splitCommandLine(command)![0]!)).toBe(true);
  });

  it.each(["npm test", "npm run build", "git status", "cargo test", "go test ./...", "python -m pytest"])(
    "%s does not",
    (command) => {
      expect(needsNetwork(splitCommandLine(command)![0]!)).toBe(false);
    },
  );
});

describe("RuleSet", () => {
  const rules = new RuleSet([
    { command: "npm", action: "ask" },
    { command: "npm test", action: "allow" },
    { command: "npm install", action: "allow", network: true },
    { command: "git push", action: "deny" },
    { tool: "git_*", action: "allow" },
    { tool: "delete_file", action: "deny" },
  ]);
  const judge = (command: string) => rules.judge("run_command", splitCommandLine(command));

  it("lets the last matching rule decide each command", () => {
    expect(judge("npm test -- --watch=false").action).toBe("allow");
    expect(judge("npm run build")).toMatchObject({ action: "ask", rule: { command: "npm" } });
    expect(judge("make")).toEqual({ action: undefined, network: false });
  });

  it("denies a line when one of its commands is denied, and allows it only when each is allowed or only reads", () => {
    expect(judge("npm test && git push")).toMatchObject({ action: "deny", rule: { command: "git push" } });
    expect(judge("npm test | tee out.log").action).toBe(undefined);
    expect(judge("npm test | tail -5").action).toBe("allow");
    expect(judge("ls").action).toBe(undefined);
  });

  it("compares the program by name, so a path to it matches too", () => {
    expect(judge("/usr/bin/git push origin").action).toBe("deny");
    expect(judge("./node_modules/.bin/npm test").action).toBe("allow");
  });

  it("grants the network only where an allow rule says so", () => {
    expect(judge("npm install")).toMatchObject({ action: "allow", network: true });
    expect(judge("npm install && npx tsc")).toMatchObject({ network: false });
  });

  it("judges tools by name, with * as a wildcard", () => {
    expect(rules.judge("git_commit", undefined).action).toBe("allow");
    expect(rules.judge("delete_file", undefined).action).toBe("deny");
    expect(rules.judge("write_file", undefined).action).toBe(undefined);
  });

  it("turns an always answer into rules that give back the same words", () => {
    const parts = splitCommandLine("cd src && grep -c 'a b' notes.txt > n.txt && npm install left-pad");
    const grants = grantsFor("run_command", parts, true);
    expect(grants).toEqual([
      { command: "grep -c 'a b' notes.txt", action: "allow" },
      { command: "npm install left-pad", action: "allow", network: true },
    ]);
    const granted = new RuleSet(grants);
    expect(granted.judge("run_command", parts)).toMatchObject({ action: "allow", network: true });
  });
});

describe("rules in the config", () => {
  async function workspaceWith(global: string, project: string) {
    const root = tempDir("cairn-rules-");
    await mkdir(path.join(root, "config", "cairn"), { recursive: true });
    await mkdir(path.join(root, "ws", ".cairn"), { recursive: true });
    await writeFile(path.join(root, "config", "cairn", "config.yaml"), global);
    await writeFile(path.join(root, "ws", ".cairn", "config.yaml"), project);
    return { cwd: path.join(root, "ws"), env: { HOME: root, XDG_CONFIG_HOME: path.join(root, "config") } };
  }

  it("add the project's rules after the global ones instead of replacing them", async () => {
    const options = await workspaceWith(
      "rules:\n  - { command: git push, action: deny }\n",
      "rules:\n  - { command: npm test, action: allow }\n",
    );
    const { config } = await loadConfig({ ...options, trust: { flag: true } });
    expect(config.rules).toEqual([
      { command: "git push", action: "deny" },
      { command: "npm test", action: "allow" },
    ]);
    expect(config.sandbox).toMatchObject({ network: false, allow_unsandboxed: false });
    // Until the folder is trusted, its allow rule is the repository's word, not the person's.
    const untrusted = await loadConfig(options);
    expect(untrusted.config.rules).toEqual([{ command: "git push", action: "deny" }]);
    expect(untrusted.trust.widening).toMatchObject([
      { key: "rules[0]", asks: 'allow command "npm test" without asking' },
    ]);
  });

  it("are checked, each problem located", async () => {
    const options = await workspaceWith(
      "rules:\n  - { command: 'npm test && npm publish', action: allow }\n",
      "rules:\n  - { action: deny }\n  - { tool: x, action: maybe }\n",
    );
    const error = await loadConfig(options).catch((caught: Error) => caught);
    expect(String(error)).toMatch(
      /config\.yaml: rules\[0\]\.command: expected one command, such as npm test/,
    );
    expect(String(error)).toMatch(
      /\.cairn\/config\.yaml: rules\[0\]: a rule needs a tool, a command, or both/,
    );
    expect(String(error)).toMatch(/\.cairn\/config\.yaml: rules\[1\]\.action: /);
  });
});
