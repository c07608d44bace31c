/**
 * What names say a secret is behind them, in two strengths (docs/security.md, "Secrets"):
 * - environment variables: a name that merely contains KEY, SECRET or TOKEN (Codex's default
 *   excludes) or one of the words below leaves the environment of commands and has its value
 *   redacted. Removing a harmless variable costs nothing;
 * - assignments in text (`NAME=value`, `NAME: value`, `"NAME": "value"`): only names made of those
 *   words at word boundaries, since text is full of `key: …` and `monkey = …` that hide nothing.
 */

/** Words that make a name secret wherever they stand in it, as a whole word. */
const SECRET_WORDS = new Set([
  "TOKEN",
  "SECRET",
  "SECRETS",
  "PASSWORD",
  "PASSWD",
  "PASSPHRASE",
  "CREDENTIAL",
  "CREDENTIALS",
  "APIKEY",
  "PRIVATEKEY",
  "CONNECTIONSTRING",
]);

/** Words that make a name secret as its last word after another one (`DB_PWD`, `DB_PASS`, `SENTRY_DSN`, `NPM_AUTH`). */
const SECRET_LAST_WORDS = new Set(["KEY", "PWD", "PASS", "DSN", "AUTH", "PAT"]);

/**
 * The words of a name, upper case: split at `_`, `-`, `.` and camelCase humps, so `apiKey`,
 * `api-key`, `API_KEY` and `db.password` read alike.
 */
function wordsOf(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toUpperCase()
    .split(/[_.\-\s]+/)
    .filter(Boolean);
}

/**
 * A name in text whose value is a secret: `*_API_KEY`, `*_KEY`, `*_TOKEN`, `*_SECRET`,
 * `*PASSWORD*`, `*CREDENTIALS*`, `AWS_*`, `DATABASE_URL`, `*_DSN`, … (npm's `_auth` too).
 */
export function isSecretName(name: string): boolean {
  const words = wordsOf(name);
  if (words.length === 0) return false;
  if (words.some((word) => SECRET_WORDS.has(word) || word.includes("PASSWORD"))) return true;
  const last = words.at(-1)!;
  if (SECRET_LAST_WORDS.has(last) && (words.length > 1 || (last === "AUTH" && name.startsWith("_"))))
    return true;
  const joined = words.join("_");
  return (
    words[0] === "AWS" ||
    joined.includes("CONNECTION_STRING") ||
    joined === "DATABASE_URL" ||
    joined.endsWith("_DATABASE_URL")
  );
}

/**
 * Codex's default excludes (KEY, SECRET, TOKEN), and more words passwords and keys hide behind:
 * any variable whose name contains one of these, in any case.
 */
const VARIABLE_INFIXES = ["KEY", "SECRET", "TOKEN", "PASS", "PWD", "CREDENTIAL", "PRIVATE"];

/** The shell's own folders, which merely contain PWD. */
const PLAIN_VARIABLES = new Set(["PWD", "OLDPWD"]);

/**
 * An environment variable that holds a secret by its name: a secret name in text, or any name
 * containing KEY, SECRET, TOKEN, PASS, PWD, CREDENTIAL or PRIVATE (but `PWD` and `OLDPWD`).
 */
export function isSecretVariable(name: string): boolean {
  const upper = name.toUpperCase();
  if (PLAIN_VARIABLES.has(upper)) return false;
  return VARIABLE_INFIXES.some((infix) => upper.includes(infix)) || isSecretName(name);
}
