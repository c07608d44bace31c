import { Box, Static, Text } from "ink";
import { type ProgressState, runningLine, statusLine } from "./progressState.js";

export interface ProgressViewProps {
  state: ProgressState;
  /** Lines that stay: finished tasks, notices. */
  lines: Array<{ key: number; text: string }>;
  now: number;
}

/** The live view of a batch in a terminal: what finished above, a line per running task, the totals. */
export function ProgressView({ state, lines, now }: ProgressViewProps) {
  return (
    <Box flexDirection="column">
      <Static items={lines}>{(line) => <Text key={line.key}>{line.text}</Text>}</Static>
      {[...state.running.values()].map((task) => (
        <Text key={task.key} wrap="truncate-end">
          {"  "}
          {runningLine(task, now)}
        </Text>
      ))}
      <Text bold>{statusLine(state, now)}</Text>
    </Box>
  );
}
