import { describe, expect, it } from "vitest";
import { configSchema } from "../../src/config/schema.js";
import { EventBus } from "../../src/events/bus.js";
import { EVENT_STRING_LIMITS } from "../../src/events/cap.js";
import type { StampedEvent } from "../../src/events/types.js";
import { redactGitConfig } from "../../src/safety/gitConfigCredentials.js";
import { createRedactor, hideCredentialShapes, redactDeep, redactEvents } from "../../src/safety/redact.js";

const openaiKey = `sk-proj-${"Ab3dE5gH7jK9mN1pQ3sT5vX7zA9cE1gI3kM5oQ7sU9wY1"}`;
const anthropicKey = `sk-ant-api03-${"Zx8Cv6Bn4Mm2Ll0Kk8Jj6Hh4Gg2Ff0Dd8Ss6Aa4Qq2Ww0Ee8Rr6Tt4"}-AAAA`;
const corpKey = "corp-7f3a9c1e5b2d8f4a6c0e";

const env = {
  OPENAI_API_KEY: openaiKey,
  ANTHROPIC_API_KEY: anthropicKey,
  CORP_LLM: corpKey,
  GITHUB_TOKEN: "plain-looking-token-value",
  DB_PASSWORD: "hunter2hunter2",
  SHORT_TOKEN: "abc123",
  HOME: "/home/dev",
  PATH: "/usr/local/bin:/usr/bin:/bin",
  EDITOR: "vim-with-long-name",
};
const config = configSchema.parse({ providers: { "openai-compatible": { api_key_env: "CORP_LLM" } } });
const redact = createRedactor({ env, config });

describe("createRedactor", () => {
  it("replaces provider keys from env, named by their variable, in tool output and error messages", () => {
    const output = `$ env\nOPENAI_API_KEY=${openaiKey}\nANTHROPIC_API_KEY=${anthropicKey}\nok`;
    expect(redact(output)).toBe(
      "$ env\nOPENAI_API_KEY=[REDACTED:OPENAI_API_KEY]\nANTHROPIC_API_KEY=[REDACTED:ANTHROPIC_API_KEY]\nok",
    );
    const error = new Error(`401 Unauthorized: Incorrect API key provided: ${openaiKey}.`);
    expect(redact(error.message)).toBe(
      "401 Unauthorized: Incorrect API key provided: [REDACTED:OPENAI_API_KEY].",
    );
  });

  it("knows a key by the api_key_env the config names, whatever the variable is called", () => {
    expect(redact(`curl -H "x-api-key: ${corpKey}" https://llm.corp`)).toBe(
      'curl -H "x-api-key: [REDACTED:CORP_LLM]" https://llm.corp',
    );
  });

  it("replaces values of secret-looking variables, but not short values or ordinary variables", () => {
    expect(redact("token plain-looking-token-value, password hunter2hunter2")).toBe(
      "token [REDACTED:GITHUB_TOKEN], password [REDACTED:DB_PASSWORD]",
    );
    const ordinary = "abc123 in /home/dev with /usr/local/bin:/usr/bin:/bin and vim-with-long-name";
    expect(redact(ordinary)).toBe(ordinary);
  });

  it.each([
    ["OpenAI", `key=${"sk-"}${"a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6"}`, "key=[REDACTED]"],
    ["OpenAI project", `"sk-proj-${"q".repeat(20)}9Xy_Z-1"`, '"[REDACTED]"'],
    ["Anthropic", `sk-ant-api03-${"k".repeat(40)}`, "[REDACTED]"],
    ["GitHub classic", `ghp_${"A1b2C3d4E5".repeat(4)}`, "[REDACTED]"],
    ["GitHub app", `ghs_${"Z9y8X7w6V5".repeat(4)}`, "[REDACTED]"],
    ["GitHub fine-grained", `github_pat_11ABCDEFG0${"x".repeat(40)}`, "[REDACTED]"],
    ["AWS", "aws_access_key_id = AKIAIOSFODNN7EXAMPLE", "aws_access_key_id = [REDACTED]"],
    ["Google", `AIza${"SyD-3kF9_qW2".repeat(3)}`, "[REDACTED]"],
    ["Slack", "xoxb-1234567890-0987654321-AbCdEfGhIjKl", "[REDACTED]"],
    [
      "JWT",
      "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
      "[REDACTED]",
    ],
    ["Bearer", "Authorization: Bearer abc.def-ghi_jkl/mno+pqr==", "Authorization: Bearer [REDACTED]"],
    [
      "URL password",
      "git clone https://me:s3cr3t-pass@github.com/x/y",
      "git clone https://me:[REDACTED]@github.com/x/y",
    ],
    [
      "URL user token",
      "git clone https://0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b@git.corp/x/y",
      "git clone https://[REDACTED]@git.corp/x/y",
    ],
    [
      "PEM private key",
      "a\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nAAAAB\n-----END OPENSSH PRIVATE KEY-----\nb",
      "a\n[REDACTED]\nb",
    ],
  ])("replaces %s credentials", (_shape, text, expected) => {
    expect(redact(text)).toBe(expected);
  });

  it.each([
    [".env line", "APP_DB_PASSWORD=s3cret-db-pass\nDEBUG=true", "APP_DB_PASSWORD=[REDACTED]\nDEBUG=true"],
    ["export, quoted", "export API_KEY='abc def ghi'", "export API_KEY='[REDACTED]'"],
    ["YAML", "db:\n  password: correct horse battery # rotate", "db:\n  password: [REDACTED] # rotate"],
    [
      "JSON",
      '{"client_secret": "s3cr3t-value", "name": "app"}',
      '{"client_secret": "[REDACTED]", "name": "app"}',
    ],
    ["header", "X-Api-Key: abcdef123456", "X-Api-Key: [REDACTED]"],
    ["flag", "mysql --password=hunter22 -u app", "mysql --password=[REDACTED] -u app"],
    ["property", "spring.datasource.password=s3cr3t!", "spring.datasource.password=[REDACTED]"],
    ["npmrc", "//registry.npmjs.org/:_authToken=abc123abc123", "//registry.npmjs.org/:_authToken=[REDACTED]"],
    [
      "ADO connection string",
      "Server=db;User Id=sa;Password=myPass123;Database=x",
      "Server=db;User Id=sa;Password=[REDACTED];Database=x",
    ],
    [
      "libpq connection string",
      "host=db user=app password=s3cretpw dbname=x",
      "host=db user=app password=[REDACTED] dbname=x",
    ],
    [
      "JDBC URL",
      "jdbc:postgresql://h/db?user=u&password=p4ssw0rd&ssl=true",
      "jdbc:postgresql://h/db?user=u&password=[REDACTED]&ssl=true",
    ],
    ["Basic", "Authorization: Basic dXNlcjpwYXNzd29yZA==", "Authorization: Basic [REDACTED]"],
    [
      "a known key keeps its name",
      `OPENAI_API_KEY="${openaiKey}"`,
      'OPENAI_API_KEY="[REDACTED:OPENAI_API_KEY]"',
    ],
  ])("replaces what is assigned to a secret name: %s", (_form, text, expected) => {
    expect(redact(text)).toBe(expected);
    expect(redact(expected)).toBe(expected);
  });

  it("leaves assignments to ordinary names, references, types and flags alone", () => {
    const text = [
      "key: greeting.hello",
      "monkey=banana12",
      "primary_key=True",
      "token = get_token(user)",
      "apiKey: string;",
      "password = $DB_PASSWORD",
      "const t = process.env.GITHUB_TOKEN;",
      "PWD=/home/dev/project",
      "MAX_TOKENS=4096",
      "GITHUB_TOKEN= MY_AGENT_TOKEN=set",
      "src/token.ts:12:const x = parse(input);",
      "Refused: read_file config/secrets.yaml: config/secrets.yaml looks like a secret file",
    ].join("\n");
    expect(createRedactor({ env: {} })(text)).toBe(text);
  });

  it("leaves ordinary text alone", () => {
    const text = [
      "task-management-service-for-teams and disk-usage-report-generator-v2",
      "sk-short, Bearer x, commit 3f2a9c1e5b7d9f0a2c4e6b8d0f1a3c5e7b9d1f3a",
      "uuid 123e4567-e89b-12d3-a456-426614174000, AKIAN, https://example.com:8080/path",
      "https://maintainers-of-the-project@lists.example.org, https://me@github.com/x/y",
      "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----",
    ].join("\n");
    expect(createRedactor({ env: {} })(text)).toBe(text);
  });

  it("is idempotent", () => {
    const once = redact(`${openaiKey} ghp_${"A1b2C3d4E5".repeat(4)} Bearer abcdefghijkl`);
    expect(redact(once)).toBe(once);
  });

  // How fast is the benchmarks' business; a pattern that backtracks on such text would not end
  // within the test's timeout at all.
  it("finds the one key in megabytes of output", () => {
    const line = "npm info it worked if it ends with ok; compiling src/index.ts (42 modules) in 1.2s\n";
    const text = `${line.repeat(60_000)}leaked ${openaiKey}\n${line.repeat(60_000)}`;
    expect(text.length).toBeGreaterThan(9_000_000);
    const result = redact(text);
    expect(result).toContain("leaked [REDACTED:OPENAI_API_KEY]\n");
    expect(result).not.toContain(openaiKey);
    expect(result.length).toBe(text.length - openaiKey.length + "[REDACTED:OPENAI_API_KEY]".length);
  });
});

describe("redactDeep", () => {
  it("hides the string under a secret key of a tool's arguments or data", () => {
    const args = {
      path: "config.json",
      value: { db: { password: "s3cret-db-pass", port: "5432" }, token: null },
    };
    expect(redactDeep(args, redact)).toEqual({
      path: "config.json",
      value: { db: { password: "[REDACTED]", port: "5432" }, token: null },
    });
  });

  it("redacts every string of an event and leaves everything else, and the original, as it was", () => {
    const event = {
      type: "tool.result",
      call_id: "c1",
      tool: "run_command",
      ok: true,
      output: `Exit code 0\nOPENAI_API_KEY=${openaiKey}`,
      data: { exit_code: 0, lines: [`token ${anthropicKey}`, null], nested: { cancelled: false } },
      duration_ms: 12,
    };
    const copy = structuredClone(event);
    expect(redactDeep(event, redact)).toEqual({
      ...event,
      output: "Exit code 0\nOPENAI_API_KEY=[REDACTED:OPENAI_API_KEY]",
      data: {
        exit_code: 0,
        lines: ["token [REDACTED:ANTHROPIC_API_KEY]", null],
        nested: { cancelled: false },
      },
    });
    expect(event).toEqual(copy);
  });
});

describe("redactEvents on the bus", () => {
  function bus() {
    const seen: StampedEvent[] = [];
    const events = new EventBus("s1", 0, redactEvents(redact));
    events.subscribe((event) => seen.push(event));
    const deltas = () => seen.flatMap((event) => (event.type === "message.delta" ? [event.text] : []));
    return { events, seen, deltas };
  }

  /** Streams text in pieces of `size` characters, as a provider would, then ends the message. */
  function stream(events: EventBus, text: string, size: number): void {
    for (let i = 0; i < text.length; i += size)
      events.emit({ type: "message.delta", text: text.slice(i, i + size) });
    events.emit({ type: "message", text });
  }

  it.each([1, 3, 7, 50])("sees a key streamed in pieces of %i characters whole", (size) => {
    const { events, deltas, seen } = bus();
    const text = `Set it with\nAuthorization: Bearer ${corpKey}x and OPENAI_API_KEY=${openaiKey} then run.`;
    stream(events, text, size);
    const shown = deltas().join("");
    expect(shown).toBe(
      "Set it with\nAuthorization: Bearer [REDACTED] and OPENAI_API_KEY=[REDACTED:OPENAI_API_KEY] then run.",
    );
    expect(seen.at(-1)).toMatchObject({ type: "message", text: shown });
    expect(seen.map((event) => event.seq)).toEqual(seen.map((_, i) => i + 1));
  });

  it.each([1, 4, 9])(
    "holds an assignment to a secret name back until its value is whole (pieces of %i)",
    (size) => {
      const { events, deltas } = bus();
      stream(
        events,
        'Put this in .env:\nAPP_DB_PASSWORD=s3cret-db-pass and\n"api_key": "abc def ghi"\nthen restart.',
        size,
      );
      expect(deltas().join("")).toBe(
        'Put this in .env:\nAPP_DB_PASSWORD=[REDACTED] and\n"api_key": "[REDACTED]"\nthen restart.',
      );
    },
  );

  it("holds a private key block back until it ends", () => {
    const { events, deltas } = bus();
    const pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\nqs9+x\n-----END RSA PRIVATE KEY-----";
    stream(events, `key:\n${pem}\ndone`, 4);
    expect(deltas().join("")).toBe("key:\n[REDACTED]\ndone");
  });

  it("finds a key whole where a huge argument is cut around it, at the head's end and the tail's start", () => {
    const { events, seen } = bus();
    const { headBytes, tailBytes } = EVENT_STRING_LIMITS;
    const filler = (bytes: number) => "x".repeat(bytes);
    // One key across each edge of what the event keeps, one in the middle that is cut away.
    const content = [
      filler(headBytes - 10),
      openaiKey,
      filler(1 << 20),
      corpKey,
      filler(1 << 20),
      openaiKey,
      filler(tailBytes - 10),
    ].join(" ");
    events.emit({
      type: "tool.call",
      call_id: "c1",
      tool: "write_file",
      kind: "edit",
      title: "write_file keys.txt",
      args: { path: "keys.txt", content },
      permission: "write",
    });
    const event = seen.at(-1) as Extract<StampedEvent, { type: "tool.call" }>;
    const shown = (event.args as { content: string }).content;
    expect(event.cut).toEqual([{ field: "args.content", bytes: content.length }]);
    expect(shown.length).toBeLessThan(headBytes + tailBytes + 100);
    for (const secret of [openaiKey, corpKey])
      for (let at = 0; at + 8 <= secret.length; at++) expect(shown).not.toContain(secret.slice(at, at + 8));
    // The replacement itself may be cut at the edge; what is kept of it says what it was.
    expect(shown).toContain("x [REDACTED");
  });

  it("passes streamed text on at word breaks, so it still streams", () => {
    const { events, deltas } = bus();
    for (const piece of ["Reading the ", "fai", "ling test ", "now"])
      events.emit({ type: "message.delta", text: piece });
    expect(deltas()).toEqual(["Reading the ", "failing test "]);
    events.emit({ type: "status", status: "running_tools" });
    expect(deltas()).toEqual(["Reading the ", "failing test ", "now"]);
  });
});

describe("the forms git's config and a .netrc hold credentials in", () => {
  // The one rule for credentials in files (docs/security.md#sandbox): every form the sandbox's
  // copy of a git config takes out is found by the redactor too, in what cairn shows and keeps,
  // and by the shapes git's own output is cleaned with, in git's config file and `--list` forms.
  const canary = "CANARY7q2w3e4r";
  const forms: Array<[where: string, text: string]> = [
    [
      "a remote's URL with a token as password",
      `\turl = https://x-access-token:${canary}@github.com/o/r.git`,
    ],
    ["a remote's URL with a token as its user", `\turl = https://ghp${canary}0123456789@github.com/o/r.git`],
    ["an insteadOf URL", `[url "https://oauth2:${canary}@gitlab.example/"]`],
    ["an extra header, upper case, basic", `\textraheader = AUTHORIZATION: basic ${canary}==`],
    ["an extra header, lower case, bearer", `\textraheader = authorization: bearer ${canary}`],
    ["an extra header, Negotiate", `\textraheader = Authorization: Negotiate ${canary}`],
    ["an extra header, a scheme of its own", `\textraheader = Authorization: Custom-Scheme ${canary}`],
    ["an extra header, no scheme", `\textraheader = Authorization: ${canary}`],
    ["an extra header, PRIVATE-TOKEN", `\textraheader = PRIVATE-TOKEN: ${canary}`],
    ["an extra header, X-Api-Key", `\textraheader = X-Api-Key: ${canary}`],
    ["an extra header, a cookie", `\textraheader = Cookie: session=${canary}`],
    [
      "a URL's extra header, as --list prints it",
      `http.https://github.com/.extraheader=AUTHORIZATION: basic ${canary}`,
    ],
    ["a cookie header, as --list prints it", `http.extraheader=Cookie: sid=${canary}`],
    ["a password key, as --list prints it", `sendemail.smtppass=${canary}`],
    ["a token key, as --list prints it", `hub.oauthtoken=${canary}`],
    ["a password key in the file", `\tsmtpPass = ${canary}`],
    ["a token key in the file", `\toauthtoken = ${canary}`],
    ["a .netrc's line", `machine github.com login x password ${canary}`],
    ["a .netrc's password on its own line", `  password ${canary}`],
  ];
  const redact = createRedactor({ env: {} });

  it.each(forms)("hides %s, in what cairn shows and in git's own output", (_where, text) => {
    expect(redact(text)).not.toContain(canary);
    expect(hideCredentialShapes(text)).not.toContain(canary);
    expect(redact(text)).toContain("[REDACTED");
  });

  it.each(forms.filter(([where]) => !where.includes(".netrc")))(
    "and the sandbox's copy of a git config takes out %s",
    (_where, text) => {
      expect(redactGitConfig(`[http]\n${text}\n`)).not.toContain(canary);
    },
  );

  it.each([
    "Authorization: required",
    "Authorization: see the docs below",
    "compass = north",
    "Password reset links expire after an hour.",
    "\tpassword-less = true",
    "core.bare=false",
    "\tfsmonitor = false",
  ])("leaves alone what holds none: %s", (text) => {
    expect(redact(text)).toBe(text);
    expect(hideCredentialShapes(text)).toBe(text);
  });
});
