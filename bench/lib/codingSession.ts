import type { ScriptedTurn } from "../../test/support/scriptedServer.js";
import type { SourceFile } from "./sources.js";

/** A line that occurs once in its file and is long enough to be worth editing. */
function editableLine(content: string): string | undefined {
  const lines = content.split("\n");
  return lines.find(
    (line) =>
      line.trim().length >= 20 && !line.includes("//") && lines.indexOf(line) === lines.lastIndexOf(line),
  );
}

/**
 * What a model does on a real task, as a fixed script over `files` (the workspace): read a
 * file, search for a name from it, edit it, read another, update the TODO list, and so on,
 * then answer. The same files and turns give the same session on every run.
 */
export function codingSession(files: readonly SourceFile[], turns: number): ScriptedTurn[] {
  const script: ScriptedTurn[] = [];
  let next = 0;
  let current: SourceFile | undefined;
  for (let t = 0; t < turns - 1; t++) {
    let call: { name: string; args: unknown } | undefined;
    const step = t % 5;
    if (step === 1 && current) {
      const name = /\b[a-z][A-Za-z]{7,}\b/.exec(current.content)?.[0];
      if (name) call = { name: "grep", args: { pattern: `\\b${name}\\b`, max_results: 20 } };
    } else if (step === 2 && current) {
      const line = editableLine(current.content);
      if (line)
        call = {
          name: "edit_file",
          args: { path: current.path, old_string: line, new_string: `${line} // checked` },
        };
    } else if (step === 4) {
      call = {
        name: "todo_write",
        args: {
          todos: [
            {
              id: "1",
              content: "Read the modules involved",
              status: next < files.length ? "in_progress" : "completed",
            },
            { id: "2", content: `Mark the lines checked (${next} files so far)`, status: "pending" },
          ],
        },
      };
    }
    if (!call) {
      current = files[next++ % files.length]!;
      call = { name: "read_file", args: { path: current.path } };
    }
    script.push({
      text: t === 0 ? "Plan: read the modules and mark each checked line." : "",
      toolCalls: [call],
    });
  }
  script.push({ text: "Marked one line in each module as checked." });
  return script;
}

/** What a summariser asked to compact the conversation answers: a short state snapshot. */
export const SNAPSHOT_REPLY: ScriptedTurn = {
  text: [
    "## Goal",
    "- Mark one line in each module as checked.",
    "## Constraints",
    "- none",
    "## Decisions",
    "- Append `// checked` to the first unique line of each file.",
    "## Files touched",
    "- the modules read so far",
    "## TODOs",
    "- Continue with the next module.",
    "## Pending issues",
    "- none",
    "## Open questions",
    "- none",
  ].join("\n"),
};
