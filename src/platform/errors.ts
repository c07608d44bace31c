/**
 * A configuration the run cannot start with. The CLI exits with `exitCode` (2: bad usage or
 * configuration, DESIGN.md "Command line") and prints the message as it is, so the message must
 * say where (file, variable or flag), which key, what was expected and what was found.
 */
export class ConfigError extends Error {
  readonly exitCode = 2;
  override name = "ConfigError";
}

/**
 * Something the command needs cannot be reached (the queue's Redis): not a bad flag as such, so
 * exit code 1, but printed as it is, one line without a stack trace, saying what to do.
 */
export class UnavailableError extends Error {
  readonly exitCode = 1;
  override name = "UnavailableError";
}
