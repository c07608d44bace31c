import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { cleanEnvironment, environmentPolicy } from "../../src/safety/environment.js";
import { createRedactor, looksLikeCredential } from "../../src/safety/redact.js";
import { tempDir } from "../helpers/temp.js";

const TOKEN = `ghs_${"Q7w8E9r0T1".repeat(4)}`;
const BASIC = Buffer.from(`x-access-token:${TOKEN}`).toString("base64");

/** What git reads from its environment, as a command cairn runs would see it. */
function gitConfigList(env: Record<string, string>): string {
  return execFileSync("git", ["config", "--list", "--show-origin"], {
    cwd: tempDir(),
    env: { PATH: process.env.PATH ?? "", HOME: tempDir(), ...env },
    encoding: "utf8",
  });
}

describe("git settings in the environment of what the model runs", () => {
  const policy = environmentPolicy();

  it("passes GIT_CONFIG_KEY/VALUE pairs with the token taken out, so git still reads them", () => {
    const parent = {
      PATH: process.env.PATH,
      GIT_CONFIG_COUNT: "3",
      GIT_CONFIG_KEY_0: `url.https://x-access-token:${TOKEN}@github.com/.insteadOf`,
      GIT_CONFIG_VALUE_0: "https://github.com/",
      GIT_CONFIG_KEY_1: "http.https://github.com/.extraheader",
      GIT_CONFIG_VALUE_1: `AUTHORIZATION: basic ${BASIC}`,
      GIT_CONFIG_KEY_2: "core.autocrlf",
      GIT_CONFIG_VALUE_2: "input",
    };
    const env = cleanEnvironment(parent, policy);
    expect(JSON.stringify(env)).not.toContain(TOKEN);
    expect(JSON.stringify(env)).not.toContain(BASIC);
    const listed = gitConfigList({
      GIT_CONFIG_COUNT: env.GIT_CONFIG_COUNT!,
      ...Object.fromEntries(Object.entries(env).filter(([name]) => name.startsWith("GIT_CONFIG_"))),
    });
    expect(listed).toContain(
      "url.https://x-access-token:[REDACTED]@github.com/.insteadof=https://github.com/",
    );
    expect(listed).toContain("http.https://github.com/.extraheader=AUTHORIZATION: [REDACTED]");
    expect(listed).toContain("core.autocrlf=input");
  });

  it("passes what `git -c` hands on (GIT_CONFIG_PARAMETERS) in either quoting, the credentials out", () => {
    const parameters = `'http.extraheader'='Authorization: Bearer ${TOKEN}' 'user.name=O'\\''Brien' 'core.bare'=`;
    const env = cleanEnvironment({ GIT_CONFIG_PARAMETERS: parameters }, policy);
    expect(env.GIT_CONFIG_PARAMETERS).toBeDefined();
    expect(env.GIT_CONFIG_PARAMETERS).not.toContain(TOKEN);
    const listed = gitConfigList({ GIT_CONFIG_PARAMETERS: env.GIT_CONFIG_PARAMETERS! });
    expect(listed).toContain("http.extraheader=Authorization: [REDACTED]");
    expect(listed).toContain("user.name=O'Brien");
    expect(listed).toContain("core.bare\n");
  });

  it("leaves settings without credentials as they were", () => {
    const parent = {
      GIT_CONFIG_PARAMETERS: "'color.ui'='never' 'core.bare'=",
      GIT_CONFIG_COUNT: "1",
      GIT_CONFIG_KEY_0: "a.b",
      GIT_CONFIG_VALUE_0: "c",
    };
    expect(cleanEnvironment(parent, policy)).toEqual(parent);
  });
});

describe("Authorization headers in any case", () => {
  const redact = createRedactor({});

  it.each([
    [`AUTHORIZATION: basic ${BASIC}`, "AUTHORIZATION: basic [REDACTED]"],
    [`authorization: bearer abcdefgh12345678`, "authorization: bearer [REDACTED]"],
    [
      `git -c http.extraheader="Authorization: token ${TOKEN}" fetch`,
      `git -c http.extraheader="Authorization: token [REDACTED]" fetch`,
    ],
    ["Authorization: 0123456789abcdef", "Authorization: [REDACTED]"],
  ])("hides %s", (text, shown) => {
    expect(redact(text)).toBe(shown);
    expect(looksLikeCredential(text)).toBe(true);
  });

  it("leaves a header that names no credential", () => {
    expect(redact("Authorization: required for every endpoint")).toBe(
      "Authorization: required for every endpoint",
    );
  });
});
