import { Box, Text } from "ink";
import wrapAnsi from "wrap-ansi";
import { ApprovalPanel, QuestionPanel } from "./Approval.js";
import { AgentLine, TodoPanel, ToolLine } from "./components.js";
import { DetailView } from "./Detail.js";
import type { Interactions, Pending } from "./interactions.js";
import type { AgentView, ToolView, TuiState } from "./state.js";

/** A line as the terminal shows it at `width` columns: wrapped at words, as Ink wraps it. */
function wrapped(line: string, width: number): string[] {
  return wrapAnsi(line, Math.max(1, width), { trim: false, hard: true }).split("\n");
}

/**
 * The end of the block being streamed that fits in `rows`: only the live tail is redrawn. Rows
 * are counted as the terminal wraps them, and a paragraph longer than the rows left is shown
 * from its end, so the live area never grows taller than the screen (Ink would then redraw all
 * of it into the scrollback at every frame).
 */
function streamTail(text: string, width: number, rows: number): string {
  const lines = text.replace(/\n+$/, "").split("\n");
  const kept: string[] = [];
  for (let i = lines.length - 1; i >= 0 && kept.length < rows; i--) {
    const line = lines[i] ?? "";
    const room = rows - kept.length;
    // Only the end of a long line can show: wrapping just that much keeps a frame cheap.
    const tail = line.length > room * width * 2 ? line.slice(-room * width * 2) : line;
    const lineRows = wrapped(tail, width);
    if (lineRows.length > room || tail !== line) {
      const shown = lineRows.slice(-room);
      shown[0] = `…${(shown[0] ?? "").slice(1)}`;
      kept.unshift(...shown);
      break;
    }
    kept.unshift(...lineRows);
  }
  return kept.join("\n");
}

/** The panel that answers what the agent waits on: an approval or a question. */
function RequestPanel({
  pending,
  bodyRows,
  interactions,
}: {
  pending: Pending;
  bodyRows: number;
  interactions: Interactions;
}) {
  return pending.kind === "approval" ? (
    <ApprovalPanel
      key={pending.requestId}
      request={pending.request}
      previewLines={bodyRows}
      onAnswer={(reply) => interactions.answerApproval(reply)}
    />
  ) : (
    <QuestionPanel
      question={pending.question}
      maxLines={bodyRows}
      onAnswer={(answer) => interactions.answerQuestion(answer)}
    />
  );
}

/**
 * What is live above the status line: Ctrl-O's view of a tool call when it is open; otherwise the
 * sub-agents and tool calls running, the tail of the answer streaming in, the request the agent
 * waits on, and the TODO list, each in the rows `liveRows` gave it.
 */
export function LiveArea({
  state,
  agents,
  running,
  pending,
  detail,
  rows,
  width,
  interactions,
}: {
  state: TuiState;
  /** The sub-agents and the tool calls shown running: the latest few. */
  agents: AgentView[];
  running: ToolView[];
  pending: Pending | undefined;
  /** Which of the recent tool calls Ctrl-O shows, if any. */
  detail: number | undefined;
  rows: { todos: number; body: number; detail: number; tail: number };
  width: number;
  interactions: Interactions;
}) {
  const detailCall = detail === undefined ? undefined : state.recentTools[detail];
  if (detailCall)
    return (
      <DetailView call={detailCall} index={detail ?? 0} count={state.recentTools.length} rows={rows.detail} />
    );
  return (
    <>
      {agents.map((agent) => (
        <AgentLine key={agent.id} agent={agent} />
      ))}
      {running.map((call) => (
        <ToolLine key={call.callId} call={call} />
      ))}
      {state.stream.visible && !pending && (
        <Box marginTop={1}>
          <Text>{streamTail(state.stream.tail, width, rows.tail)}</Text>
        </Box>
      )}
      {pending && <RequestPanel pending={pending} bodyRows={rows.body} interactions={interactions} />}
      {rows.todos > 0 && (
        <Box marginTop={1}>
          <TodoPanel todos={state.todos} maxLines={rows.todos} />
        </Box>
      )}
    </>
  );
}
