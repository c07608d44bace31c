import { Box, Static, Text } from "ink";
import { createContext, memo, use, useEffect, useState } from "react";
import type { TodoItem } from "../../events/types.js";
import { formatCost, formatDuration } from "../../platform/format.js";
import { firstLine, plural } from "../../platform/text.js";
import { wrapToWidth } from "../../platform/wrap.js";
import { callTarget } from "../eventLines.js";
import { STATUS_LABEL } from "../format.js";
import { type DiffLineKind, diffLines, resultSummary, tail } from "./describe.js";
import { markdownToAnsi } from "./markdown.js";
import type { AgentView, Item, Tone, ToolView, TuiState } from "./state.js";

const TONE_COLOR: Record<Tone, string | undefined> = {
  plain: undefined,
  dim: undefined,
  ok: "green",
  warn: "yellow",
  error: "red",
  accent: "cyan",
};

/** Whether colour (and so reverse video) is on: off with NO_COLOR or --no-color. */
export const ColorContext = createContext(true);

/** Names what a tool call acts on: the session's tool registry, provided by startTui. */

/** The cursor on the character `at`: in reverse video, or as a bar where there is no colour. */
export function Cursor({ at }: { at: string }) {
  return use(ColorContext) ? <Text inverse>{at}</Text> : <Text>▏{at}</Text>;
}

export function Line({ text, tone = "plain" }: { text: string; tone?: Tone }) {
  return (
    <Text color={TONE_COLOR[tone]} dimColor={tone === "dim"}>
      {text}
    </Text>
  );
}

const DIFF_COLOR: Record<DiffLineKind, string | undefined> = {
  add: "green",
  remove: "red",
  hunk: "cyan",
  context: undefined,
};

/** A unified diff, coloured, cut at `maxLines` with a count of what was left out. */
export function DiffView({ diff, maxLines }: { diff: string; maxLines: number }) {
  const lines = diffLines(diff);
  const shown = lines.slice(0, maxLines);
  return (
    <Box flexDirection="column" paddingLeft={4}>
      {shown.map((line) => (
        <Text
          key={line.n}
          color={DIFF_COLOR[line.kind]}
          dimColor={line.kind === "context"}
          wrap="truncate-end"
        >
          {line.text || " "}
        </Text>
      ))}
      {lines.length > shown.length && (
        <Text dimColor>… {plural(lines.length - shown.length, "more line")} (Ctrl-O shows the call)</Text>
      )}
    </Box>
  );
}

/** Lines of command output kept under a tool line: the end, where the verdict is. */
const OUTPUT_TAIL = 4;
const DIFF_LINES = 24;

/**
 * One tool call as one line: the tool, what it is about, and how it went; under it the first
 * line of a failure, the tail of a command's output, or the diff of an edit.
 */
export function ToolLine({ call }: { call: ToolView }) {
  const running = call.ok === undefined;
  const mark = running ? "◌" : call.ok ? "●" : "✗";
  const color = running ? undefined : call.ok ? (call.exitCode ? "yellow" : "green") : "red";
  const output = call.output ?? "";
  const body =
    call.ok === false
      ? { lines: [{ n: 0, text: firstLine(output) }], hidden: 0 }
      : call.exitCode !== undefined
        ? tail(output.slice(output.indexOf("\n") + 1), OUTPUT_TAIL)
        : undefined;
  return (
    <Box flexDirection="column">
      <Box>
        <Text color={color} dimColor={running}>
          {mark}{" "}
        </Text>
        <Text bold={!running} dimColor={running} wrap="truncate-end">
          {call.tool} <Text bold={false}>{callTarget(call)}</Text>
          {!running && <Text dimColor>{`  ${resultSummary(call)}`}</Text>}
        </Text>
      </Box>
      {body?.lines.some((l) => l.text.trim()) && (
        <Box flexDirection="column" paddingLeft={2}>
          {body.hidden > 0 && <Text dimColor>⎿ … {plural(body.hidden, "line")} above</Text>}
          {body.lines.map((line) => (
            <Text
              key={line.n}
              color={call.ok === false ? "red" : undefined}
              dimColor={call.ok !== false}
              wrap="truncate-end"
            >
              {line.n === 0 ? "⎿ " : "  "}
              {line.text || " "}
            </Text>
          ))}
        </Box>
      )}
      {call.diff && <DiffView diff={call.diff} maxLines={DIFF_LINES} />}
    </Box>
  );
}

const TODO_MARK: Record<TodoItem["status"], string> = { completed: "✓", in_progress: "▸", pending: "○" };

/** The live plan: each step and its state, the current one highlighted; long lists show a window. */
export function TodoPanel({ todos, maxLines = 8 }: { todos: TodoItem[]; maxLines?: number }) {
  if (todos.length === 0) return null;
  const done = todos.filter((t) => t.status === "completed").length;
  const current = Math.max(
    0,
    todos.findIndex((t) => t.status !== "completed"),
  );
  const start = Math.max(0, Math.min(current - 1, todos.length - maxLines));
  const shown = todos.slice(start, start + maxLines);
  return (
    <Box flexDirection="column">
      <Text bold>
        TODO <Text dimColor>{`${done}/${todos.length}`}</Text>
      </Text>
      {start > 0 && <Text dimColor> … {start} done above</Text>}
      {shown.map((todo) => (
        <Text
          key={todo.id}
          wrap="truncate-end"
          color={todo.status === "in_progress" ? "yellow" : todo.status === "completed" ? "green" : undefined}
          dimColor={todo.status === "completed"}
          bold={todo.status === "in_progress"}
        >
          {` ${TODO_MARK[todo.status]} ${todo.content}`}
        </Text>
      ))}
      {start + maxLines < todos.length && <Text dimColor> … {todos.length - start - maxLines} more</Text>}
    </Box>
  );
}

const SPINNER = ["◐", "◓", "◑", "◒"];
const TICK_MS = 250;

export function compactTokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

type StatusProps = Pick<TuiState, "status" | "busy" | "usage" | "model" | "approval" | "turnStartedAt"> & {
  /** A passing message: Ctrl-C once, prompts waiting their turn. */
  notice?: string | undefined;
  /** The columns it has: what it says is shortened to fit before anything is cut. */
  width?: number;
};

/**
 * What cairn is doing and how long it has been at it, what the session has cost so far, the
 * model and the approval mode. It ticks only while work is in progress: idle, it costs nothing.
 */
export const StatusLine = memo(function StatusLine(props: StatusProps) {
  const { status, busy, usage, model, approval, notice } = props;
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (!busy) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), TICK_MS);
    return () => clearInterval(timer);
  }, [busy]);
  const since = status?.since ?? props.turnStartedAt;
  const state = busy
    ? `${SPINNER[Math.floor(now / TICK_MS) % SPINNER.length]} ${status ? STATUS_LABEL[status.status] : "working"}${status?.detail ? `: ${status.detail}` : ""} ${since === null ? "" : formatDuration(Math.max(0, now - since))}`
    : "● ready";
  const said = notice ? ` · ${notice}` : "";
  const facts = statusFacts(
    {
      tokens: compactTokens(usage.input_tokens + usage.output_tokens),
      cost: formatCost(usage.cost_usd),
      model,
      approval,
    },
    (props.width ?? Number.POSITIVE_INFINITY) - state.length - said.length,
  );
  return (
    <Box>
      <Text wrap="truncate-end">
        <Text color={busy ? "yellow" : "green"}>{state}</Text>
        {notice && <Text color="yellow">{said}</Text>}
        <Text dimColor>{facts}</Text>
      </Text>
    </Box>
  );
});

/**
 * The status line's facts in the room left: whole where they fit, else shortened a step at a
 * time — the model without its provider, the approval mode without its label, then the model
 * left out — so a narrow terminal (80 columns) keeps what matters rather than losing the end.
 */
function statusFacts(
  facts: { tokens: string; cost: string; model: string; approval: string },
  room: number,
): string {
  const { tokens, cost, model, approval } = facts;
  const short = model.slice(model.lastIndexOf("/") + 1);
  const steps = [
    [`${tokens} tokens`, cost, model, `approval: ${approval}`],
    [`${tokens} tokens`, cost, short, `approval: ${approval}`],
    [`${tokens} tokens`, cost, short, approval],
    [`${tokens} tokens`, cost, approval],
    [tokens, cost, approval],
  ].map((parts) => ` · ${parts.join(" · ")}`);
  return steps.find((line) => line.length <= room) ?? (steps.at(-1) as string);
}

/** One running sub-agent or delegate: its id, its job, its model. */
export function AgentLine({ agent }: { agent: AgentView }) {
  return (
    <Box>
      <Text color="magenta">◆ </Text>
      <Text wrap="truncate-end">
        <Text bold>{agent.id}</Text> {agent.task}
        {agent.model && <Text dimColor>{`  ${agent.model}`}</Text>}
      </Text>
    </Box>
  );
}

/** A finished item of the conversation, drawn once. */
function TranscriptItem({ item, width }: { item: Item; width: number }) {
  switch (item.kind) {
    case "user":
      return (
        <Box marginTop={1}>
          <Text color="cyan" bold>
            {"› "}
          </Text>
          <Text>{item.text}</Text>
        </Box>
      );
    case "markdown":
      return (
        <Box marginTop={1}>
          <Text>{markdownToAnsi(item.text, Math.max(20, width - 2))}</Text>
        </Box>
      );
    case "tool":
      return <ToolLine call={item.call} />;
    case "line":
      // Broken between words here: Ink's own wrapping leaves a space at the start of a wrapped line.
      return <Line text={wrapToWidth(item.text, width)} tone={item.tone} />;
    case "todos":
      return (
        <Box marginTop={1}>
          <TodoPanel todos={item.todos} maxLines={item.todos.length} />
        </Box>
      );
    case "block":
      return (
        <Box flexDirection="column" marginTop={1}>
          <Text bold color="cyan">
            {item.title}
          </Text>
          <Text>{item.text}</Text>
        </Box>
      );
  }
}

/** The conversation's finished items, each printed once above the live area: the terminal keeps them. */
export function Transcript({ transcript, width }: { transcript: TuiState["transcript"]; width: number }) {
  return (
    <Static key={transcript.key} items={transcript.items}>
      {(item) => (
        <Box key={item.id} flexDirection="column" width={width}>
          <TranscriptItem item={item} width={width} />
        </Box>
      )}
    </Static>
  );
}
