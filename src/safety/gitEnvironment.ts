import { hiddenValue } from "./gitConfigCredentials.js";
import { hideCredentialShapes } from "./redact.js";

/**
 * git's settings given in the environment rather than a file: `GIT_CONFIG_PARAMETERS` (what
 * `git -c` hands the git it runs) and `GIT_CONFIG_COUNT` with `GIT_CONFIG_KEY_<n>`/`GIT_CONFIG_VALUE_<n>`
 * (how CI systems hand a token to git: `url.https://x:<token>@github.com/.insteadOf`,
 * `http.extraheader` with an Authorization header). They reach commands with the credentials
 * taken out, as git's config files do: leaving a variable out would leave git a count it cannot
 * satisfy, and every git command would fail.
 */

const NUMBERED = /^GIT_CONFIG_(?:KEY|VALUE)_(\d+)$/;

/** One setting without its credentials: the key's URL password or token, the value's. */
function withoutCredentials(
  key: string,
  value: string | undefined,
): { key: string; value: string | undefined } {
  const name = key.slice(key.lastIndexOf(".") + 1);
  const hidden = value === undefined ? undefined : (hiddenValue(name, value) ?? hideCredentialShapes(value));
  return { key: hideCredentialShapes(key), value: hidden };
}

/** git's shell quoting (sq_quote): each `'` and `!` written as `'\''` and `'\!'`. */
const QUOTED = /'((?:[^']|'\\[!']')*)'/y;

function unquote(text: string): string {
  return text.replace(/'\\([!'])'/g, "$1");
}

function quote(text: string): string {
  return `'${text.replace(/[!']/g, (char) => `'\\${char}'`)}'`;
}

/**
 * `GIT_CONFIG_PARAMETERS` without credentials: entries `'key=value'` (older git) or
 * `'key'='value'` (`'key'=` for a boolean), each quoted again as git wrote it. A value cairn cannot read is passed only if
 * nothing in it is shaped like a credential.
 */
function parametersWithoutCredentials(parameters: string): string | undefined {
  const entries: string[] = [];
  let index = 0;
  while (index < parameters.length) {
    if (parameters[index] === " ") {
      index++;
      continue;
    }
    QUOTED.lastIndex = index;
    const first = QUOTED.exec(parameters);
    if (!first) return hideCredentialShapes(parameters) === parameters ? parameters : undefined;
    index = QUOTED.lastIndex;
    let key = unquote(first[1]!);
    let value: string | undefined;
    if (parameters[index] === "=") {
      // `'key'=` alone is a boolean set true.
      QUOTED.lastIndex = ++index;
      const second = QUOTED.exec(parameters);
      if (second) index = QUOTED.lastIndex;
      const clean = withoutCredentials(key, second ? unquote(second[1]!) : undefined);
      entries.push(`${quote(clean.key)}=${clean.value === undefined ? "" : quote(clean.value)}`);
      continue;
    }
    const equals = key.indexOf("=");
    if (equals >= 0) [key, value] = [key.slice(0, equals), key.slice(equals + 1)];
    const clean = withoutCredentials(key, value);
    entries.push(quote(clean.value === undefined ? clean.key : `${clean.key}=${clean.value}`));
  }
  return entries.join(" ");
}

/**
 * The variables of `parent` that carry git settings, each as commands are given it; a variable
 * that cannot be shown without its credential is left out (`undefined`).
 */
export function gitSettingsWithoutCredentials(
  parent: Record<string, string | undefined>,
): Map<string, string | undefined> {
  const shown = new Map<string, string | undefined>();
  for (const [name, value] of Object.entries(parent)) {
    if (value === undefined) continue;
    if (name === "GIT_CONFIG_PARAMETERS") shown.set(name, parametersWithoutCredentials(value));
    const numbered = NUMBERED.exec(name)?.[1];
    if (numbered === undefined || shown.has(name)) continue;
    const clean = withoutCredentials(
      parent[`GIT_CONFIG_KEY_${numbered}`] ?? "",
      parent[`GIT_CONFIG_VALUE_${numbered}`],
    );
    shown.set(
      `GIT_CONFIG_KEY_${numbered}`,
      parent[`GIT_CONFIG_KEY_${numbered}`] === undefined ? undefined : clean.key,
    );
    shown.set(`GIT_CONFIG_VALUE_${numbered}`, clean.value);
  }
  return shown;
}
