import type { Config } from "../config/schema.js";
import type { EventTransform } from "../events/bus.js";
import { capEvent } from "../events/cap.js";
import type { CairnEvent } from "../events/types.js";
import { isSecretName, isSecretVariable } from "./secretNames.js";

/** Replaces every secret found in a text. */
export type Redactor = (text: string) => string;

export interface RedactorOptions {
  env?: NodeJS.ProcessEnv;
  /** Each provider's `api_key_env` names a variable that holds a key, whatever its name looks like. */
  config?: Pick<Config, "providers">;
}

const REDACTED = "[REDACTED]";

/** Shorter values are too likely to be ordinary words or numbers found everywhere. */
const MIN_SECRET_LENGTH = 8;

/** Shapes of well-known credentials, each whole match replaced. */
const TOKEN_SHAPES = [
  String.raw`-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY-----`,
  // OpenAI (sk-, sk-proj-, sk-svcacct-), Anthropic (sk-ant-), OpenRouter (sk-or-), DeepSeek, …
  String.raw`\bsk-[A-Za-z0-9_-]{20,}`,
  String.raw`\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}`,
  String.raw`\bgh[pousr]_[A-Za-z0-9]{30,}`,
  String.raw`\bgithub_pat_[A-Za-z0-9_]{20,}`,
  String.raw`\bglpat-[A-Za-z0-9_-]{20,}`,
  String.raw`\b(?:AKIA|ASIA)[A-Z0-9]{16}\b`,
  String.raw`\bAIza[A-Za-z0-9_-]{35,}`,
  String.raw`\bxox[abposr]-[A-Za-z0-9-]{10,}`,
  String.raw`\bnpm_[A-Za-z0-9]{36}\b`,
  String.raw`\bhf_[A-Za-z0-9]{30,}\b`,
  String.raw`\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{10,}`,
];

/** The password in https://user:password@host, and in any connection string of that form. */
const URL_PASSWORD = String.raw`(\b[a-z][a-z0-9+.-]*://[^\s/:@]+:)[^\s/@]+(?=@)`;

/** A token given as the whole user part of a URL (`https://<token>@github.com/…`, as git takes one). */
const URL_USER_TOKEN = String.raw`(\bhttps?://)(?=[A-Za-z0-9_-]*[0-9])[A-Za-z0-9_-]{20,}(?=@)`;

/** HTTP authentication schemes (IANA's registry, and the ones git hosts and clouds use). */
const AUTH_SCHEMES = [
  "bearer",
  "basic",
  "token",
  "digest",
  "negotiate",
  "ntlm",
  "dpop",
  "gnap",
  "hoba",
  "mutual",
  "privatetoken",
  "scram-sha-1",
  "scram-sha-256",
  "vapid",
  "oauth",
  "apikey",
  "aws4-hmac-sha256",
];

/**
 * An Authorization header in any case and with any scheme, as git's `http.extraheader` and curl's
 * `-H` take one (`AUTHORIZATION: basic …`, `authorization: Negotiate …`): after a known scheme,
 * whatever follows it; after another word, or without one, a value with a digit in it, so
 * `Authorization: required` and `Authorization: see below` stay.
 */
const AUTHORIZATION_HEADER = String.raw`\b(?:${anyCase("proxy-")})?${anyCase("authorization")}["']?\s*[:=]\s*["']?(?:(?:${AUTH_SCHEMES.map(anyCase).join("|")})\s+|(?:[A-Za-z][A-Za-z0-9-]*\s+)?(?=[A-Za-z0-9._~+/-]*[0-9]))`;

/** What an Authorization header or a `Bearer`/`Basic` credential is after the words that announce it. */
const AUTHORIZATION = String.raw`(\b(?:Bearer|Basic)\s+|${AUTHORIZATION_HEADER})[A-Za-z0-9._~+/-]{8,}=*`;

/**
 * The value of a header git sends with every request (`http.extraheader`,
 * `http.<url>.extraheader`, as CI checkouts write it) that carries a credential: an
 * Authorization or Cookie header, or one named for a token, key, secret or password
 * (`PRIVATE-TOKEN`, `X-Api-Key`), whatever the value's shape.
 */
const EXTRAHEADER = String.raw`(\b${anyCase("extraheader")}\s*[=:]\s*["']?(?:${["proxy-authorization", "authorization", "cookie"].map(anyCase).join("|")}|[A-Za-z0-9-]*(?:${["token", "api-key", "apikey", "secret", "password", "passwd"].map(anyCase).join("|")}))\s*:\s*(?:(?:${AUTH_SCHEMES.map(anyCase).join("|")})\s+)?)[^\s"'][^\n"']*`;

/** Credentials known by what precedes them; the first group is kept so the text still reads. */
const PREFIXED_SHAPES = [EXTRAHEADER, AUTHORIZATION, URL_PASSWORD, URL_USER_TOKEN];

const CREDENTIAL = new RegExp([...TOKEN_SHAPES, ...PREFIXED_SHAPES].join("|"));

/** Every credential known by its shape alone; the groups are those of PREFIXED_SHAPES. */
const SHAPES = [...PREFIXED_SHAPES, ...TOKEN_SHAPES].join("|");
const CREDENTIAL_SHAPES = new RegExp(SHAPES, "g");

/** A shape's replacement: what precedes the credential (`Bearer `, `https://user:`) kept; `kept` are PREFIXED_SHAPES' groups. */
function hideShape(kept: ReadonlyArray<string | undefined>): string {
  return `${kept.find((group) => group !== undefined) ?? ""}${REDACTED}`;
}

/**
 * Takes out the credentials known by their shape alone (tokens, `Bearer …`, an extra header's
 * value, the password or token of a URL's user part, what git's settings and a `.netrc` hold
 * under a password's or a token's name), whatever the session's environment holds: for text that
 * is about the repository rather than its files, such as git's own messages and settings.
 */
export function hideCredentialShapes(text: string): string {
  return hideCredentialSettings(
    text.replace(CREDENTIAL_SHAPES, (_match, ...groups: unknown[]) =>
      hideShape(groups.slice(0, PREFIXED_SHAPES.length) as Array<string | undefined>),
    ),
  );
}

/** A key of git's config that holds a secret by its name: `sendemail.smtpPass`, `hub.oauthtoken`, `gitlab.token`. */
const GIT_SECRET_KEY = /(?:pass|passwd|password|passphrase|token|secret)$/i;
/** Headers that carry a credential, besides those whose name says so (`PRIVATE-TOKEN`, `X-Api-Key`). */
const CREDENTIAL_HEADER = /^(?:proxy-)?authorization$|^cookie$/i;

/**
 * What a git setting is shown as when it holds a credential: an extra header that carries one
 * with its value hidden (`AUTHORIZATION: [REDACTED]`), the value of a key named for a password
 * or a token; undefined when it holds none. `value` is as git reads it (quotes resolved).
 */
export function hiddenSetting(key: string, value: string): string | undefined {
  if (key.toLowerCase() === "extraheader") {
    const name = value.split(":")[0]!.trim();
    const carries = CREDENTIAL_HEADER.test(name) || GIT_SECRET_KEY.test(name) || /api-?key$/i.test(name);
    return carries && value.includes(":") ? `${name}: ${REDACTED}` : undefined;
  }
  return GIT_SECRET_KEY.test(key) && hidesSecret(value) ? REDACTED : undefined;
}

/**
 * A git setting on a line of its own, as `git config --list` prints it (`hub.oauthtoken=…`, its
 * name dotted, no blanks) or a config file holds it (`\tsmtpPass = …`, indented); and a `.netrc`'s
 * password (`machine h login u password …`, or `password …` on its own line).
 */
const GIT_SETTING_LINE =
  /^(\s*[A-Za-z][A-Za-z0-9-]*(?:\.[^\s=]*)?\.)([A-Za-z][A-Za-z0-9-]*)(=)(.+)$|^([ \t]+)([A-Za-z][A-Za-z0-9-]*)([ \t]*=[ \t]*)(.+)$/;
const NETRC_PASSWORD = /^(\s*(?:(?:machine|default)\b.*?\s)?password\s+)(\S+)(\s*(?:account\s+\S+\s*)?)$/;

/** Hides the credentials of git settings and `.netrc` passwords, line by line (GIT_SETTING_LINE). */
function hideCredentialSettings(text: string): string {
  if (!/=|password/i.test(text)) return text;
  return text
    .split("\n")
    .map((line) => {
      const netrc = NETRC_PASSWORD.exec(line);
      if (netrc && hidesSecret(netrc[2]!)) return `${netrc[1]}${REDACTED}${netrc[3]}`;
      const setting = GIT_SETTING_LINE.exec(line);
      if (!setting) return line;
      const [lead = "", key = "", separator = "", value = ""] = setting[1]
        ? setting.slice(1, 5)
        : setting.slice(5, 9);
      const hidden = hiddenSetting(key, value.trim().replace(/^"(.*)"$/, "$1"));
      return hidden === undefined ? line : `${lead}${key}${separator}${hidden}`;
    })
    .join("\n");
}

/** A value shaped like a credential: a known token shape, or a URL with a password in it. */
export function looksLikeCredential(value: string): boolean {
  return CREDENTIAL.test(value);
}

/** Case-insensitive letters, for words inside the one big pattern (which must stay case-sensitive). */
function anyCase(word: string): string {
  return [...word].map((letter) => `[${letter.toUpperCase()}${letter.toLowerCase()}]`).join("");
}

/**
 * A name that may be secret (isSecretName decides) before `=` or `:`, maybe quoted, as in
 * `.env` files, YAML, JSON, headers, code and connection strings.
 */
const NAME = "[A-Za-z0-9_][A-Za-z0-9_.-]*";
const HINTS = [
  "key",
  "token",
  "secret",
  "pass",
  "pwd",
  "private",
  "credential",
  "auth",
  "dsn",
  "aws",
  "pat",
  "connection",
  "database",
];
const MAY_BE_SECRET = `(?=[A-Za-z0-9_.-]*(?:${HINTS.map(anyCase).join("|")}))`;
const QUOTED = String.raw`"(?:[^"\\\n]|\\.)*"|'[^'\n]*'`;
/** After `=`: a quoted string, or a word that ends there (not a call, an index or a member). */
const EQUALS_VALUE = String.raw`${QUOTED}|[^\s"'\`,;&()[\]{}<>]+(?=[\s,;&#)\]}]|$)`;
/** After `:`: a quoted string, or the rest of the line up to a comment or a quote. */
const COLON_VALUE = String.raw`${QUOTED}|[^\s"'\`#,{[(][^\n#"'\`]*`;
/** `=` with blanks after it only when there are some before (`NAME = value`): `NAME= OTHER=x` assigns nothing. */
const EQUALS = String.raw`(?:=|[ \t]+=[ \t]*)`;
const ASSIGNMENT = String.raw`(?<![\w.])(["']?)(${MAY_BE_SECRET}${NAME})\1((?:${EQUALS}(?:${EQUALS_VALUE})|[ \t]*:[ \t]*(?:${COLON_VALUE})))`;

/**
 * Whether `name` before this separator holds a secret. Before `:` a dotted name is a file
 * (`secrets.yaml: …`, `token.ts:12:` in grep output), not a key; before `=` it is a
 * property (`spring.datasource.password=…`).
 */
function assignsSecret(name: string, separator: string): boolean {
  return isSecretName(name) && !(name.includes(".") && separator.trimStart().startsWith(":"));
}

/** Values that name a kind or a state, not a secret: `primary_key=True`, `password: string`. */
const PLAIN_VALUES = new Set(
  "true false null none nil undefined yes no on off string str number int integer bool boolean any unknown bytes object".split(
    " ",
  ),
);

/** Shorter values after a secret name are placeholders or flags more often than secrets. */
const MIN_ASSIGNED_LENGTH = 4;

/** Whether a value assigned to a secret name is worth hiding: not a reference (`$VAR`), a type or a flag. */
export function hidesSecret(value: string): boolean {
  return (
    value.length >= MIN_ASSIGNED_LENGTH &&
    !value.startsWith("$") &&
    !value.startsWith("[REDACTED") &&
    !PLAIN_VALUES.has(value.toLowerCase())
  );
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The secret values in env, each with the variable it came from. */
function secretValues(env: NodeJS.ProcessEnv, keyVariables: Set<string>): Map<string, string> {
  const values = new Map<string, string>();
  for (const [name, value] of Object.entries(env)) {
    if (!value || value.length < MIN_SECRET_LENGTH) continue;
    if (keyVariables.has(name) || isSecretVariable(name)) values.set(value, name);
  }
  return values;
}

const ASSIGNMENTS = new RegExp(ASSIGNMENT, "g");
/** A line without one of these holds no assignment to a secret name: it skips the costlier pattern. */
const HINTED = new RegExp(HINTS.join("|"), "i");

/**
 * Hides what is assigned to a secret name, on lines the token shapes and known values were
 * already taken out of: a value already hidden stays as it was (`OPENAI_API_KEY=[REDACTED:…]`).
 */
function redactAssignments(text: string): string {
  if (!HINTED.test(text)) return text;
  return text
    .split("\n")
    .map((line) => (HINTED.test(line) ? line.replace(ASSIGNMENTS, hideAssigned) : line))
    .join("\n");
}

function hideAssigned(match: string, quote: string, name: string, rest: string): string {
  const [, separator = "", raw = ""] = /^([ \t]*[:=][ \t]*)(.*)$/s.exec(rest) ?? [];
  const quoted = raw[0] === '"' || raw[0] === "'";
  // A statement's `;` or a list's `,` ends an unquoted value: `apiKey: string;`.
  const inner = quoted ? raw.slice(1, -1) : raw.replace(/[\s;,]+$/, "");
  if (!assignsSecret(name, separator) || !hidesSecret(inner)) {
    // Not a secret itself, but what follows may hold one: `key: x, password: y`.
    return `${match.slice(0, match.length - raw.length)}${redactAssignments(raw)}`;
  }
  const mark = quoted ? raw[0]! : "";
  return `${quote}${name}${quote}${separator}${mark}${REDACTED}${mark}${raw.slice(inner.length + 2 * mark.length)}`;
}

/**
 * One variable as `env`, `printenv`, `export -p`, `declare -x` or a container's settings print it
 * (`"DB_PASSWORD=…",` in JSON), the value up to a closing quote or comma.
 */
const ENVIRONMENT_LINE =
  /^(\s*(?:declare\s+-x\s+|export\s+)?["']?)([A-Za-z_][A-Za-z0-9_]*)=(["']?)(.*?)(["']?,?\s*)$/;
const URL_PASSWORDS = new RegExp(URL_PASSWORD, "g");

/**
 * Hides, in a command's output before the model reads it, the values of variables whose names say
 * they are secret (the wider rule of environment variables: `*PASS*`, `*PWD*`, `*CREDENTIAL*`,
 * `*PRIVATE*`, …) and the password of a connection string (`postgres://u:pw@db`), on lines shaped
 * like an environment listing. Only such lines: the model reads files as they are, or it would
 * write the placeholder back. A password in prose is not found (docs/security.md#redaction).
 */
export function hideEnvironmentSecrets(text: string): string {
  if (!text.includes("=")) return text;
  return text
    .split("\n")
    .map((line) => {
      const match = ENVIRONMENT_LINE.exec(line);
      if (!match) return line;
      const [, lead = "", name = "", quote = "", value = "", tail = ""] = match;
      if (isSecretVariable(name) && value !== "" && !value.startsWith("$") && !value.startsWith("[REDACTED"))
        return `${lead}${name}=${quote}${REDACTED}${tail}`;
      const hidden = value.replace(URL_PASSWORDS, `$1${REDACTED}`);
      return hidden === value ? line : `${lead}${name}=${quote}${hidden}${tail}`;
    })
    .join("\n");
}

/**
 * Builds the function that takes secrets out of anything cairn shows or keeps (events, the
 * store, reports, logs, error messages): the values of secret-looking variables in env, named
 * as `[REDACTED:OPENAI_API_KEY]`, and credentials of well-known shapes, as `[REDACTED]`, in one
 * precompiled regular expression, so megabytes of tool output go through in one pass; then
 * whatever is assigned to a secret name (`DB_PASSWORD=…`, `"api_key": "…"`), on the lines that
 * could hold such a name.
 */
export function createRedactor(options: RedactorOptions = {}): Redactor {
  const keyVariables = new Set(
    Object.values(options.config?.providers ?? {}).flatMap((provider) =>
      provider?.api_key_env ? [provider.api_key_env] : [],
    ),
  );
  const values = secretValues(options.env ?? process.env, keyVariables);
  // Longest first, so that a secret containing another is replaced whole.
  const literals = [...values.keys()].sort((a, b) => b.length - a.length).map(escapeRegExp);
  const pattern = new RegExp(`(${literals.length > 0 ? literals.join("|") : "(?!)"})|${SHAPES}`, "g");
  return (text) =>
    hideCredentialSettings(
      redactAssignments(
        text.replace(pattern, (_match, value: string | undefined, ...groups: unknown[]) =>
          value
            ? `[REDACTED:${values.get(value)}]`
            : hideShape(groups.slice(0, PREFIXED_SHAPES.length) as Array<string | undefined>),
        ),
      ),
    );
}

/**
 * Whether a key of an event or of a tool's arguments names a secret, remembered: the same few
 * keys come in every event (isSecretName splits a name into words with two regular expressions),
 * and a session meets a few hundred at most; past that many, names are judged afresh.
 */
const secretKeys = new Map<string, boolean>();
const SECRET_KEYS_KEPT = 1024;

function isSecretKey(key: string): boolean {
  let secret = secretKeys.get(key);
  if (secret === undefined) {
    secret = isSecretName(key);
    if (secretKeys.size < SECRET_KEYS_KEPT) secretKeys.set(key, secret);
  }
  return secret;
}

/**
 * A copy of an event, or any JSON-shaped value, with every string in it redacted, and the
 * string under a secret key (`{"password": "…"}` in a tool's arguments or data) hidden whole.
 */
export function redactDeep<T>(value: T, redact: Redactor): T {
  if (typeof value === "string") return redact(value) as T;
  if (Array.isArray(value)) return value.map((item) => redactDeep(item, redact)) as T;
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [
        key,
        typeof item === "string" && isSecretKey(key) && hidesSecret(item) && redact(item) === item
          ? REDACTED
          : redactDeep(item, redact),
      ]),
    ) as T;
  }
  return value;
}

const KEY_BLOCK_END = /-----END [A-Z0-9 ]*PRIVATE KEY-----/;

/** An assignment on the last line whose value may still be arriving: to the line's end after `:`. */
const OPEN_ASSIGNMENT = new RegExp(
  String.raw`(?<![\w.])["']?(${NAME})["']?((?:${EQUALS}(?:"[^"\n]*|'[^'\n]*|\S*)|[ \t]*:[^\n]*))$`,
  "g",
);

/** Where an assignment to a secret name starts on the last line, when its value may not be whole yet. */
function openAssignment(text: string): number | undefined {
  const lineStart = text.lastIndexOf("\n") + 1;
  const line = text.slice(lineStart);
  for (let start = 0; start < line.length; ) {
    OPEN_ASSIGNMENT.lastIndex = 0;
    const match = OPEN_ASSIGNMENT.exec(line.slice(start));
    if (!match) return undefined;
    if (assignsSecret(match[1]!, match[2]!)) return lineStart + start + match.index;
    start += match.index + 1;
  }
  return undefined;
}

/**
 * Where streamed text can be cut so that the part before it is redacted correctly on its own:
 * after the last blank (secrets hold none), but before a `Bearer ` that still waits for its
 * token, before a private key block that has not ended, and before an assignment to a secret
 * name whose value may not be whole.
 */
function safeCut(text: string): number {
  let cut = text.search(/\s\S*$/) + 1;
  const bearer = /\b(?:Bearer|Basic)\s+$/.exec(text.slice(0, cut));
  if (bearer) cut = bearer.index;
  const begin = text.lastIndexOf("-----BEGIN ");
  if (begin !== -1 && begin < cut && !KEY_BLOCK_END.test(text.slice(begin))) cut = begin;
  cut = Math.min(cut, openAssignment(text) ?? cut);
  return Math.max(cut, 0);
}

/**
 * Bounds and redacts every event once, at the source, so the store, renderers and anything
 * reading the stream later only ever hold redacted text of a bounded size. The long strings of a
 * tool call's arguments, its result's data and an approval's prompt are cut first (capEvent), so
 * that megabytes a model wrote are not redacted, stored and sent again by every subscriber; the
 * kept ends are redacted with a margin beyond the cut, so a secret across it is still found
 * whole. A secret streamed in pieces would slip through delta by delta, so streamed text is
 * passed on up to a safe cut, the rest with the next event.
 */
export function redactEvents(redact: Redactor): EventTransform {
  let pending = "";
  const take = (end: number): CairnEvent[] => {
    const text = pending.slice(0, end);
    pending = pending.slice(end);
    return text ? [{ type: "message.delta", text: redact(text) }] : [];
  };
  return (event) => {
    if (event.type === "message.delta") {
      pending += event.text;
      return take(safeCut(pending));
    }
    return [...take(pending.length), redactDeep(capEvent(event, redact), redact)];
  };
}
