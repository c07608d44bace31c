import { readFileSync } from "node:fs";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { configSchema } from "../../src/config/schema.js";
import { splitCommandLine } from "../../src/platform/shell/split.js";
import {
  type ApprovalAnswer,
  ApprovalPolicy,
  type ApprovalPrompt,
  type ApprovalRequest,
} from "../../src/safety/approval.js";
import { cleanEnvironment, environmentPolicy } from "../../src/safety/environment.js";
import { realPath } from "../../src/safety/paths.js";
import { createRedactor, hideEnvironmentSecrets } from "../../src/safety/redact.js";
import { sessionCredentials } from "../../src/safety/sandboxMasks.js";
import { secretsReadBy } from "../../src/safety/secretCommands.js";
import { SecretFiles } from "../../src/safety/secretFiles.js";
import { isSecretName, isSecretVariable } from "../../src/safety/secretNames.js";
import { tempDir } from "../helpers/temp.js";

const GH_TOKEN_SHAPE = `ghp_${"A1b2C3d4E5".repeat(4)}`;

describe("the environment of what the model runs", () => {
  const parent = {
    PATH: "/usr/bin:/bin",
    HOME: "/home/dev",
    LANG: "C.UTF-8",
    SSH_AUTH_SOCK: "/run/ssh.sock",
    TOKENIZERS_PARALLELISM: "false",
    OPENAI_API_KEY: "sk-proj-aaaaaaaaaaaaaaaaaaaaaaaa",
    CORP_LLM: "corp-key-value",
    GITHUB_TOKEN: "ghtoken",
    NPM_TOKEN: "npmtoken",
    AWS_REGION: "eu-west-1",
    AWS_SECRET_ACCESS_KEY: "aws-secret",
    DB_PASSWORD: "hunter2",
    PGPASSWORD: "pgpass",
    GOOGLE_APPLICATION_CREDENTIALS: "/home/dev/gcp.json",
    STRIPE_KEY: "stripe",
    SENTRY_DSN: "https://abc@sentry.io/1",
    DATABASE_URL: "postgres://app@db/app",
    REDIS: "redis://user:s3cret@cache:6379",
    SOMETHING: GH_TOKEN_SHAPE,
    MY_APP_MODE: "dev",
  };
  const config = configSchema.parse({ providers: { "openai-compatible": { api_key_env: "CORP_LLM" } } });

  it("leaves out every variable whose name or value says secret, and every provider key", () => {
    const env = cleanEnvironment(parent, environmentPolicy(config));
    expect(Object.keys(env).sort()).toEqual(["HOME", "LANG", "MY_APP_MODE", "PATH", "SSH_AUTH_SOCK"]);
  });

  it("passes what include names, by name or pattern, but a provider key only by its exact name", () => {
    const policy = environmentPolicy(
      configSchema.parse({
        commands: {
          env: { include: ["NPM_TOKEN", "AWS_*", "*_API_KEY"], exclude: ["LANG"], set: { CI: "1" } },
        },
      }),
    );
    const env = cleanEnvironment(parent, policy);
    expect(env.NPM_TOKEN).toBe("npmtoken");
    expect(env.AWS_REGION).toBe("eu-west-1");
    expect(env.AWS_SECRET_ACCESS_KEY).toBe("aws-secret");
    expect(env.OPENAI_API_KEY).toBeUndefined();
    expect(env.LANG).toBeUndefined();
    expect(env.CI).toBe("1");
    expect(env.GITHUB_TOKEN).toBeUndefined();
    const named = environmentPolicy(
      configSchema.parse({ commands: { env: { include: ["OPENAI_API_KEY"] } } }),
    );
    expect(cleanEnvironment(parent, named).OPENAI_API_KEY).toBe(parent.OPENAI_API_KEY);
  });

  it("passes what one program is given besides (an external agent's key), unless excluded", () => {
    const policy = environmentPolicy(configSchema.parse({ commands: { env: { exclude: ["GITHUB_*"] } } }));
    const env = cleanEnvironment(parent, policy, ["OPENAI_API_KEY", "GITHUB_TOKEN"]);
    expect(env.OPENAI_API_KEY).toBe(parent.OPENAI_API_KEY);
    expect(env.GITHUB_TOKEN).toBeUndefined();
    expect(env.DB_PASSWORD).toBeUndefined();
  });

  it("tells secret names in text apart from ordinary ones", () => {
    for (const name of [
      "OPENAI_API_KEY",
      "apiKey",
      "x-api-key",
      "DB_PASSWORD",
      "PGPASSWORD",
      "client_secret",
      "GITHUB_TOKEN",
      "token",
      "AWS_ACCESS_KEY_ID",
      "GOOGLE_APPLICATION_CREDENTIALS",
      "SENTRY_DSN",
      "DATABASE_URL",
      "ConnectionString",
      "_auth",
      "MYSQL_PWD",
    ])
      expect(isSecretName(name), name).toBe(true);
    for (const name of [
      "key",
      "monkey",
      "keyword",
      "MAX_TOKENS",
      "PWD",
      "author",
      "path",
      "password_policy_url",
    ])
      expect(isSecretName(name), name).toBe(name === "password_policy_url");
    expect(isSecretVariable("TOKENIZERS_PARALLELISM")).toBe(true);
    expect(isSecretVariable("KEYBOARD")).toBe(true);
    expect(isSecretVariable("PWD")).toBe(false);
  });

  it("takes a wider rule for variables: *PASS*, *PWD*, *CREDENTIAL*, *PRIVATE*, but not the shell's PWD", () => {
    for (const name of [
      "DB_PASS",
      "SMTP_PASSWD_FILE",
      "mysqlpwd",
      "GCP_CREDENTIAL_JSON",
      "SSH_PRIVATE",
      "PRIVATEKEY",
    ])
      expect(isSecretVariable(name), name).toBe(true);
    for (const name of ["PWD", "OLDPWD", "PATH", "LANG", "EDITOR"])
      expect(isSecretVariable(name), name).toBe(false);
    expect(isSecretName("DB_PASS")).toBe(true);
    expect(isSecretName("privateKey")).toBe(true);
    expect(isSecretName("pass")).toBe(false);
  });

  it("keeps out of an environment listing the model reads what its names or a connection string's password hide", () => {
    const listing = [
      "PATH=/usr/bin",
      "DB_PASS=hunter2hunter2",
      "SMTP_PWD=x1",
      "export GCP_CREDENTIAL=abc",
      'declare -x SSH_PRIVATE="line"',
      "APP_DB=postgres://app:s3cr3t@db:5432/app",
      '        "REDIS_URL=redis://u:pw@cache:6379",',
      "EMPTY_PASS=",
      "REF_TOKEN=$OTHER",
      "The password is hunter2 (prose is not a listing)",
    ].join("\n");
    expect(hideEnvironmentSecrets(listing).split("\n")).toEqual([
      "PATH=/usr/bin",
      "DB_PASS=[REDACTED]",
      "SMTP_PWD=[REDACTED]",
      "export GCP_CREDENTIAL=[REDACTED]",
      'declare -x SSH_PRIVATE="[REDACTED]"',
      "APP_DB=postgres://app:[REDACTED]@db:5432/app",
      '        "REDIS_URL=redis://u:[REDACTED]@cache:6379",',
      "EMPTY_PASS=",
      "REF_TOKEN=$OTHER",
      "The password is hunter2 (prose is not a listing)",
    ]);
  });
});

let workspace: string;
let home: string;
let secrets: SecretFiles;

async function files(root: string, contents: Record<string, string>): Promise<void> {
  for (const [file, text] of Object.entries(contents)) {
    await mkdir(path.dirname(path.join(root, file)), { recursive: true });
    await writeFile(path.join(root, file), text);
  }
}

beforeAll(async () => {
  workspace = tempDir("cairn-secrets-");
  home = tempDir("cairn-secrets-home-");
  await files(workspace, {
    ".env": "DB_PASSWORD=hunter2hunter2\n",
    ".env.local": "X=1\n",
    ".env.example": "DB_PASSWORD=\n",
    ".env.production.sample": "DB_PASSWORD=\n",
    "certs/server.pem": "-----BEGIN PRIVATE KEY-----\n",
    "certs/server.crt": "public\n",
    "deploy/prod.tfvars": 'token = "x"\n',
    "config/secrets.yaml": "password: x\n",
    "config/credentials-prod.json": "{}\n",
    "config/settings.yaml": "debug: true\n",
    "keys/id_ed25519": "private\n",
    "keys/id_ed25519.pub": "public\n",
    ".npmrc": "//registry.npmjs.org/:_authToken=npm_secret\n",
    // A reference to a variable, as committed .npmrc files hold: no credential in the file.
    "web/.npmrc": `//registry.npmjs.org/:_authToken=\${NPM_TOKEN}\nalways-auth=true\n`,
    ".netrc": "machine example.com login me password pw\n",
    "sub/.env": "TOKEN=abc\n",
    "src/app.ts": "export {};\n",
    "src/secrets.ts": "export const names = [];\n",
    "test/secrets.test.py": "def test(): pass\n",
    "allowed/.env.test": "X=1\n",
  });
  await files(home, { ".ssh/id_rsa": "private\n", ".aws/credentials": "[default]\n" });
  await symlink(path.join(workspace, ".env"), path.join(workspace, "env-link"));
  secrets = new SecretFiles(workspace, ["allowed/**"]);
});

describe("files that look like secrets", () => {
  it("are known by name, .npmrc and the like by holding a credential, and allowed ones are not", () => {
    const secret = (file: string) => secrets.isSecret(path.join(workspace, file));
    for (const file of [
      ".env",
      ".env.local",
      "certs/server.pem",
      "deploy/prod.tfvars",
      "config/secrets.yaml",
      "config/credentials-prod.json",
      "keys/id_ed25519",
      ".npmrc",
      ".netrc",
      "sub/.env",
    ])
      expect(secret(file), file).toBe(true);
    for (const file of [
      ".env.example",
      ".env.production.sample",
      "certs/server.crt",
      "config/settings.yaml",
      "keys/id_ed25519.pub",
      "web/.npmrc",
      "src/app.ts",
      "src/secrets.ts",
      "test/secrets.test.py",
      "allowed/.env.test",
      "missing/.env",
    ])
      expect(secret(file), file).toBe(false);
    expect(secrets.isSecret(path.join(home, ".ssh/id_rsa"))).toBe(true);
    expect(secrets.allowing([path.join(workspace, ".env")]).isSecret(path.join(workspace, ".env"))).toBe(
      false,
    );
  });

  it.each([
    ["cat .env", [".env"]],
    ["source .env && echo $DB_PASSWORD", [".env"]],
    ["python3 -c \"print(open('.env').read())\"", [".env"]],
    ["x=.env; cat $x", [".env"]],
    ["while read l; do echo $l; done < .env", [".env"]],
    ["head -n 5 certs/*.pem", ["certs/server.pem"]],
    ["cat ~/.ssh/id_rsa", ["~/.ssh/id_rsa"]],
    ["cat $HOME/.aws/credentials", ["~/.aws/credentials"]],
    ["cat $SOMEWHERE/id_rsa", ["$SOMEWHERE/id_rsa"]],
    // The raw text cannot tell which folder a name is meant in: both count.
    ["cd sub && cat .env", [".env", "sub/.env"]],
    [
      "grep -rn DB_PASSWORD .",
      [
        ".env",
        ".env.local",
        ".netrc",
        ".npmrc",
        "certs/server.pem",
        "config/credentials-prod.json",
        "config/secrets.yaml",
        "deploy/prod.tfvars",
        "keys/id_ed25519",
        "sub/.env",
      ],
    ],
    ["cat env-link", [".env"]],
    ["docker run --env-file=.env app", [".env"]],
    ["cat .env.example", []],
    ["ls -la .env && test -f .env", []],
    ["find . -name '.env*'", []],
    // rg skips hidden files such as .env, unless told not to.
    [
      "rg DB_PASSWORD",
      [
        "certs/server.pem",
        "config/credentials-prod.json",
        "config/secrets.yaml",
        "deploy/prod.tfvars",
        "keys/id_ed25519",
      ],
    ],
    ['node -e "console.log(process.env)"', []],
    ["env", []],
    ["cat allowed/.env.test", []],
  ])("a command line is read for the secret files it reads: %s", (command, expected) => {
    const found = secretsReadBy(
      command,
      splitCommandLine(command),
      { cwd: workspace, home, workspace },
      secrets,
    );
    expect(found.map((file) => file.replace(home, "~")).sort()).toEqual([...expected].sort());
  });
});

describe("the secret permission class", () => {
  const readEnv = (): ApprovalRequest => ({
    callId: "c1",
    tool: "read_file",
    permission: "read",
    summary: "read_file .env",
    paths: [path.join(workspace, ".env")],
  });
  const command = (text: string): ApprovalRequest => ({
    callId: "c2",
    tool: "run_command",
    permission: "exec",
    summary: `run_command ${text}`,
    command: { text, cwd: workspace },
  });
  function asking(answers: ApprovalAnswer[]) {
    const asked: ApprovalPrompt[] = [];
    const ask = async (prompt: ApprovalPrompt) => {
      asked.push(prompt);
      return answers.shift() ?? { choice: "deny" as const };
    };
    return { ask, asked };
  }
  const policy = (mode: "ask" | "auto" | "auto-edit" | "read-only", ask?: ReturnType<typeof asking>["ask"]) =>
    new ApprovalPolicy({
      mode,
      workspace,
      home,
      sandbox: { kind: "bwrap", path: "/usr/bin/bwrap" },
      secrets,
      ...(ask ? { ask } : {}),
    });

  it("is asked about in ask mode, as a danger (no Enter, no always), and the answer lets the file through", async () => {
    const { ask, asked } = asking([{ choice: "once" }, { choice: "deny", reason: "not the keys" }]);
    const decision = await policy("ask", ask).check(readEnv());
    expect(decision).toEqual({
      allowed: true,
      network: false,
      permission: "read",
      secrets: [path.join(workspace, ".env")],
    });
    expect(asked[0]).toMatchObject({ permission: "secret", summary: "read_file .env" });
    expect(asked[0]?.dangers[0]).toMatch(/^\.env looks like a secret file \(keys, passwords\)/);
    expect(asked[0]?.always).toBeUndefined();
    const refused = await policy("ask", ask).check(command("cat .env | head"));
    expect(refused).toEqual({
      allowed: false,
      reason: "The user declined `run_command cat .env | head`: not the keys",
    });
  });

  it("is asked in auto-edit and read-only too, and refused in auto and headless with what would allow it", async () => {
    for (const mode of ["auto-edit", "read-only"] as const) {
      const { ask, asked } = asking([{ choice: "once" }]);
      expect((await policy(mode, ask).check(readEnv())).allowed, mode).toBe(true);
      expect(asked).toHaveLength(1);
    }
    const { ask, asked } = asking([{ choice: "once" }]);
    const auto = await policy("auto", ask).check(command("cat .env"));
    expect(asked).toEqual([]);
    expect(auto).toEqual({
      allowed: false,
      reason: expect.stringMatching(
        /^Refused: `run_command cat \.env`: \.env looks like a secret file \(keys, passwords\), and cairn keeps such files from the model in auto mode\. Go on without it\. .*files\.allow_secrets/,
      ),
    });
    const headless = await policy("ask").check(readEnv());
    expect(headless).toMatchObject({ allowed: false, reason: expect.stringMatching(/nobody can answer/) });
    expect(headless).not.toHaveProperty("unattended");
  });

  it("leaves reads of ordinary files and of allowed secret files alone", async () => {
    const { ask, asked } = asking([]);
    const read = (file: string) => ({
      ...readEnv(),
      summary: `read_file ${file}`,
      paths: [path.join(workspace, file)],
    });
    for (const file of [".env.example", "allowed/.env.test", "src/app.ts"])
      expect((await policy("auto", ask).check(read(file))).allowed, file).toBe(true);
    expect((await policy("auto", ask).check(command("cat .env.example"))).allowed).toBe(true);
    expect(asked).toEqual([]);
  });

  it("counts writes over an existing secret file, and a copy or link of one, as touching it", async () => {
    const { ask } = asking([]);
    const writing: ApprovalRequest = {
      callId: "c3",
      tool: "copy_file",
      permission: "write",
      summary: "copy_file .env → leak.txt",
      paths: [path.join(workspace, "leak.txt"), path.join(workspace, ".env")],
    };
    expect((await policy("auto", ask).check(writing)).allowed).toBe(false);
    const viaLink = { ...readEnv(), paths: [path.join(workspace, "env-link")] };
    expect((await policy("auto", ask).check(viaLink)).allowed).toBe(false);
    const creating = { ...writing, tool: "write_file", paths: [path.join(workspace, "new/.env")] };
    expect((await policy("auto", ask).check(creating)).allowed).toBe(true);
  });

  it("keeps the reason of a refusal whole through redaction, when the command ends in a secret-looking word", async () => {
    const { ask, asked } = asking([{ choice: "deny", reason: "not now" }]);
    const redact = createRedactor({ env: {} });
    for (const text of ["grep -rn TOKEN", "git grep -n PASSWORD", "grep -rn API_KEY ."]) {
      const refused = await policy("auto").check(command(text));
      const reason = refused.allowed ? "" : refused.reason;
      expect(reason).toMatch(/looks? like (a )?secret files? \(keys, passwords\), and cairn keeps/);
      // What the user sees (`✗ Refused: …`) is the redacted reason: nothing of it is taken away.
      expect(redact(reason), text).toBe(reason);
    }
    const declined = await policy("ask", ask).check(command("grep -rn TOKEN"));
    expect(asked).toHaveLength(1);
    expect(declined).toEqual({
      allowed: false,
      reason: "The user declined `run_command grep -rn TOKEN`: not now",
    });
    if (!declined.allowed) expect(redact(declined.reason)).toBe(declined.reason);
  });
});

describe("the machine's credentials, as the file tools and the sandbox share them", () => {
  it("count a file in a credential store as a secret by its real path, keep what ssh needs, and read a git config without its token", async () => {
    const home = tempDir("cairn-home-");
    await mkdir(path.join(home, ".aws"), { recursive: true });
    await mkdir(path.join(home, ".ssh"), { recursive: true });
    await writeFile(path.join(home, ".aws", "config"), "[default]\nregion = eu-west-1\n");
    await writeFile(path.join(home, ".ssh", "known_hosts"), "github.com ssh-ed25519 AAAA\n");
    await writeFile(
      path.join(home, ".gitconfig"),
      `[url "https://${GH_TOKEN_SHAPE}@github.com/"]\n\tinsteadOf = https://github.com/\n`,
    );
    await symlink(path.join(home, ".aws", "config"), path.join(home, "aws-link"));
    const scratch = tempDir("cairn-scratch-");
    const credentials = sessionCredentials([home], { HOME: home }, () => scratch);
    const secrets = new SecretFiles(home, [], new Set(), credentials);
    expect(secrets.isSecret(path.join(home, ".aws", "config"))).toBe(true);
    expect(secrets.isSecret(path.join(home, ".ssh", "known_hosts"))).toBe(false);
    expect(secrets.isSecret(path.join(home, "aws-link"))).toBe(false);
    // The policy judges a link by where it leads, as a tool reads it.
    expect(secrets.isSecret(realPath(path.join(home, "aws-link")))).toBe(true);
    const gitconfig = path.join(home, ".gitconfig");
    const shown = secrets.shown(gitconfig);
    expect(shown).not.toBe(gitconfig);
    expect(readFileSync(shown, "utf8")).toBe(
      '[url "https://[REDACTED]@github.com/"]\n\tinsteadOf = https://github.com/\n',
    );
    // What the person allows is shown as it is, to tools as to commands.
    const allowed = new SecretFiles(home, [".gitconfig", ".aws/config"], new Set(), credentials);
    expect(allowed.shown(gitconfig)).toBe(gitconfig);
    expect(allowed.isSecret(path.join(home, ".aws", "config"))).toBe(false);
  });
});
