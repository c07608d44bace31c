import type { Config } from "../config/schema.js";
import type { EventTransform } from "../events/bus.js";
import type { CairnEvent } from "../events/types.js";

/** Replaces every secret found in a text. */
export type Redactor = (text: string) => string;

export interface RedactorOptions {
  env?: NodeJS.ProcessEnv;
  /** Each provider's `api_key_env` names a variable that holds a key, whatever its name looks like. */
  config?: Pick<Config, "providers">;
}

/** Variable names that hold secrets by convention: `*_API_KEY`, `*_TOKEN`, `*_SECRET`, `*PASSWORD*`, … */
const SECRET_NAME =
  /(?:^|_)(?:API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|SECRET|TOKEN|PASSWD|CREDENTIALS?)(?:_|$)|_KEY$|PASSWORD/i;

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

/** Credentials known by what precedes them; the first group is kept so the text still reads. */
const PREFIXED_SHAPES = [
  String.raw`(\bBearer\s+)[A-Za-z0-9._~+/-]{8,}=*`,
  // The password in https://user:password@host
  String.raw`(\b[a-z][a-z0-9+.-]*://[^\s/:@]+:)[^\s/@]+(?=@)`,
];

const REDACTED = "[REDACTED]";

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The secret values in env, each with the variable it came from. */
function secretValues(env: NodeJS.ProcessEnv, keyVariables: Set<string>): Map<string, string> {
  const values = new Map<string, string>();
  for (const [name, value] of Object.entries(env)) {
    if (!value || value.length < MIN_SECRET_LENGTH) continue;
    if (keyVariables.has(name) || SECRET_NAME.test(name)) values.set(value, name);
  }
  return values;
}

/**
 * Builds the function that takes secrets out of anything cairn shows or keeps (events, the
 * store, reports, logs, error messages): the values of secret-looking variables in env, named
 * as `[REDACTED:OPENAI_API_KEY]`, and credentials of well-known shapes, as `[REDACTED]`. All of
 * it is one precompiled regular expression, so megabytes of tool output go through in one pass.
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
  const alternatives = [
    `(${literals.length > 0 ? literals.join("|") : "(?!)"})`,
    ...PREFIXED_SHAPES,
    ...TOKEN_SHAPES,
  ];
  const pattern = new RegExp(alternatives.join("|"), "g");
  return (text) =>
    text.replace(pattern, (_match, value?: string, bearer?: string, userinfo?: string) =>
      value ? `[REDACTED:${values.get(value)}]` : `${bearer ?? userinfo ?? ""}${REDACTED}`,
    );
}

/** A copy of an event, or any JSON-shaped value, with every string in it redacted. */
export function redactDeep<T>(value: T, redact: Redactor): T {
  if (typeof value === "string") return redact(value) as T;
  if (Array.isArray(value)) return value.map((item) => redactDeep(item, redact)) as T;
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, redactDeep(item, redact)]),
    ) as T;
  }
  return value;
}

const KEY_BLOCK_END = /-----END [A-Z0-9 ]*PRIVATE KEY-----/;

/**
 * Where streamed text can be cut so that the part before it is redacted correctly on its own:
 * after the last blank (secrets hold none), but before a `Bearer ` that still waits for its
 * token and before a private key block that has not ended.
 */
function safeCut(text: string): number {
  let cut = text.search(/\s\S*$/) + 1;
  const bearer = /\bBearer\s+$/.exec(text.slice(0, cut));
  if (bearer) cut = bearer.index;
  const begin = text.lastIndexOf("-----BEGIN ");
  if (begin !== -1 && begin < cut && !KEY_BLOCK_END.test(text.slice(begin))) cut = begin;
  return Math.max(cut, 0);
}

/**
 * Redacts every event once, at the source, so the store, renderers and anything reading the
 * stream later only ever hold redacted text. A secret streamed in pieces would slip through
 * delta by delta, so streamed text is passed on up to a safe cut, the rest with the next event.
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
    return [...take(pending.length), redactDeep(event, redact)];
  };
}
