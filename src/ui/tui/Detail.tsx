import { Box, Text } from "ink";
import { plural } from "../../platform/text.js";
import { callTarget } from "../eventLines.js";
import { DiffView } from "./components.js";
import { numbered, resultSummary, tail } from "./describe.js";
import type { ToolView } from "./state.js";

/**
 * Ctrl-O: one tool call in full, its arguments and the end of its output (or its diff), fitted
 * to the screen; the arrows step through the recent calls.
 */
export function DetailView({
  call,
  index,
  count,
  rows,
}: {
  call: ToolView;
  index: number;
  count: number;
  rows: number;
}) {
  const args = numbered(JSON.stringify(call.args ?? {}, null, 2));
  const argRows = Math.min(args.length, Math.max(3, Math.floor(rows / 3)));
  // Borders, the title, two headings and a "… more" line under each part.
  const outputRows = Math.max(2, rows - argRows - 7);
  const output = call.diff ? undefined : tail(call.output ?? "(still running)", outputRows);
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="gray" paddingX={1}>
      <Text wrap="truncate-end">
        <Text bold>{call.tool}</Text> {callTarget(call)}{" "}
        <Text dimColor>
          {call.ok === undefined ? "running" : `${call.ok ? "ok" : "failed"} · ${resultSummary(call)}`} · call{" "}
          {index + 1}/{count} · ↑↓ other calls · Esc closes
        </Text>
      </Text>
      <Text dimColor>arguments</Text>
      {args.slice(0, argRows).map((line) => (
        <Text key={line.n} wrap="truncate-end">
          {line.text}
        </Text>
      ))}
      {args.length > argRows && <Text dimColor>… {plural(args.length - argRows, "more line")}</Text>}
      <Text dimColor>{call.diff ? "diff" : "output"}</Text>
      {call.diff ? (
        <DiffView diff={call.diff} maxLines={outputRows} />
      ) : (
        <>
          {output && output.hidden > 0 && <Text dimColor>… {plural(output.hidden, "line")} above</Text>}
          {output?.lines.map((line) => (
            <Text key={line.n} wrap="truncate-end">
              {line.text || " "}
            </Text>
          ))}
        </>
      )}
    </Box>
  );
}
