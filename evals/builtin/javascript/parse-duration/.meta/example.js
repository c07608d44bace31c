/** Seconds in a duration such as "1h30m" or "45s". */
export function parseDuration(text) {
  const match = /^\s*(?:(\d+)\s*h)?\s*(?:(\d+)\s*m)?\s*(?:(\d+)\s*s)?\s*$/.exec(text);
  if (!match || match.slice(1).every((part) => part === undefined)) {
    throw new Error(`not a duration: ${JSON.stringify(text)}`);
  }
  const [hours, minutes, seconds] = match.slice(1).map((part) => Number(part ?? 0));
  return hours * 3600 + minutes * 60 + seconds;
}
