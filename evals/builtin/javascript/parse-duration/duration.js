/** Seconds in a duration such as "1h30m" or "45s". */
export function parseDuration(text) {
  throw new Error("not implemented");
}
