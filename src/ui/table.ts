import os from "node:os";
import path from "node:path";

/** A stored ISO time as the person's local `YYYY-MM-DD HH:MM`. */
export function localTime(iso: string): string {
  const date = new Date(iso);
  const two = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())} ${two(date.getHours())}:${two(date.getMinutes())}`;
}

/** A path under the home folder as `~/…`, the way people write it. */
export function homePath(file: string, home: string = os.homedir()): string {
  const rel = path.relative(home, file);
  return rel && !rel.startsWith("..") && !path.isAbsolute(rel) ? path.join("~", rel) : file;
}
