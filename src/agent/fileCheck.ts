import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { reportFrom, type ValidationReport } from "../verify/check.js";
import type { FileCommand } from "./fileCommands.js";

/**
 * What the file system must show once a tier-0 file command ran: the command's own check. A
 * move is done when the destination holds what the source held and the source is gone; a write
 * when the file holds the text. Nothing else is asked of the work (the person typed the exact
 * change), so this is what `completed` rests on, with no model and no project check.
 */
export interface Postcondition {
  /** The condition in words: "b.txt holds what a.txt held, and a.txt is gone". */
  claim: string;
  /** What the file system shows instead, when the condition does not hold; undefined when it does. */
  problem(): string | undefined;
}

/** Line endings are the file's own (a CRLF file keeps CRLF): they are not what the command is about. */
function normalized(text: string): string {
  return text.replace(/\r\n?/g, "\n");
}

function textOf(file: string): string | undefined {
  try {
    return normalized(readFileSync(file, "utf8"));
  } catch {
    return undefined;
  }
}

/** A file's bytes, or a folder's entries (each a relative path, files with their size), to compare after. */
function contentOf(entry: string): string | undefined {
  try {
    if (!statSync(entry).isDirectory()) return readFileSync(entry).toString("base64");
    return readdirSync(entry, { recursive: true, encoding: "utf8" })
      .sort()
      .map((name) => {
        const info = statSync(path.join(entry, name));
        return info.isDirectory() ? `${name}/` : `${name} ${info.size}`;
      })
      .join("\n");
  } catch {
    return undefined;
  }
}

function holdsSame(destination: string, shown: string, before: string | undefined): string | undefined {
  if (!existsSync(destination)) return `${shown} is not there`;
  return contentOf(destination) === before ? undefined : `${shown} does not hold what the source held`;
}

/** The postcondition of a file command, read from the workspace before the command runs. */
export function postconditionOf({ tool, args }: FileCommand, workspace: string): Postcondition {
  const at = (relative: string) => path.resolve(workspace, relative);
  switch (tool) {
    case "move_file":
    case "copy_file": {
      const { source, destination } = args as { source: string; destination: string };
      const before = contentOf(at(source));
      const moved = tool === "move_file";
      return {
        claim: moved
          ? `${destination} holds what ${source} held, and ${source} is gone`
          : `${destination} holds what ${source} holds`,
        problem: () =>
          holdsSame(at(destination), destination, before) ??
          (moved && existsSync(at(source)) ? `${source} is still there` : undefined),
      };
    }
    case "delete_file": {
      const file = args.path as string;
      return {
        claim: `${file} is gone`,
        problem: () => (existsSync(at(file)) ? `${file} is still there` : undefined),
      };
    }
    case "write_file":
    case "append_file":
    case "edit_file": {
      const file = args.path as string;
      const before = textOf(at(file)) ?? "";
      const wanted = expectedText(tool, args, before);
      return {
        claim: wanted.claim,
        problem: () => {
          const now = textOf(at(file));
          if (now === undefined) return `${file} is not there`;
          return wanted.holds(now) ? undefined : `${file} does not hold the text`;
        },
      };
    }
  }
}

/** What a file must read once the text was written, appended or replaced in it. */
function expectedText(
  tool: "write_file" | "append_file" | "edit_file",
  args: Record<string, string>,
  before: string,
): { claim: string; holds: (now: string) => boolean } {
  const file = args.path as string;
  if (tool === "edit_file") {
    const [from, to] = [normalized(args.old_string as string), normalized(args.new_string as string)];
    return {
      claim: `${file} has ${JSON.stringify(to)} where it had ${JSON.stringify(from)}`,
      holds: (now) => now === before.replace(from, to),
    };
  }
  const content = normalized(args.content as string);
  if (tool === "write_file")
    return { claim: `${file} holds the text given`, holds: (now) => now === content };
  return {
    claim: `${file} ends with the text given, after what it held`,
    holds: (now) => now.startsWith(before) && now.endsWith(content),
  };
}

/** The postcondition checked, as the validation report every ending and renderer reads. */
export function checkPostcondition(postcondition: Postcondition): ValidationReport {
  const started = Date.now();
  const problem = postcondition.problem();
  return reportFrom([
    {
      name: "file system",
      command: postcondition.claim,
      kind: "postcondition",
      source: "file_system",
      passed: problem === undefined,
      exit_code: null,
      timed_out: false,
      duration_ms: Date.now() - started,
      output: problem ?? "",
      failures: [],
    },
  ]);
}
