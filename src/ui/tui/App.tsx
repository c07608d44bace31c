import path from "node:path";
import { Box, Static, Text, useApp, useInput, useStdout, useWindowSize } from "ink";
import { useCallback, useEffect, useLayoutEffect, useReducer, useRef, useState } from "react";
import wrapAnsi from "wrap-ansi";
import type { ChatEngine } from "../../agent/chat.js";
import { dataDir } from "../../config/load.js";
import type { StampedEvent } from "../../events/types.js";
import { ApprovalPanel, approvalChrome, QUESTION_CHROME, QuestionPanel } from "./Approval.js";
import { findCommand, parseCommand, type Screen, type SlashCommand, unknownCommand } from "./commands.js";
import { MAX_SUGGESTIONS, rankPaths, type Suggestion, type WorkspaceFileList } from "./complete.js";
import { AgentLine, ColorContext, StatusLine, TodoPanel, ToolLine, TranscriptItem } from "./components.js";
import { DetailView } from "./Detail.js";
import { type EditorState, wordAtCursor } from "./editor.js";
import type { ActionFeed } from "./feed.js";
import type { PromptHistory } from "./history.js";
import type { Interactions, Pending } from "./interactions.js";
import { Prompt } from "./Prompt.js";
import { droppedImage, pasteClipboardImage } from "./pastedImages.js";
import { CLEAR_SCREEN, useReprintOnResize } from "./reprint.js";
import { type Action, reduce, type TuiState } from "./state.js";

export interface AppProps {
  engine: ChatEngine;
  feed: ActionFeed;
  interactions: Interactions;
  commands: readonly SlashCommand[];
  history: PromptHistory;
  files: WorkspaceFileList;
  initial: TuiState;
  color: boolean;
  /** Sent as soon as the UI is up: `cairn "fix the failing test"`. */
  firstMessage?: string;
  /** Told what was left unsent in the prompt when the UI closes. */
  onUnsent?: (text: string) => void;
}

/** A second Ctrl-C within this long exits. */
const DOUBLE_PRESS_MS = 2_000;

const reduceBatch = (state: TuiState, batch: Action[]): TuiState => batch.reduce(reduce, state);

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
export function streamTail(text: string, width: number, rows: number): string {
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

/** Lines of an approval's preview or a question shown however little room there is. */
const MIN_BODY = 2;

/**
 * Rows for each live part, so that the live area never grows taller than the screen: a frame
 * taller than the terminal makes Ink clear the whole screen at every redraw, which flickers.
 * The prompt keeps its rows, then a request to the person, then the TODO list; the stream's
 * tail (or the request's preview) gets what is left.
 */
export function liveRows(
  rows: number,
  parts: {
    busy: boolean;
    todos: number;
    running: number;
    /** Rows of the approval or question panel besides its body, when one is shown. */
    asking?: number | undefined;
  },
): { prompt: number; todos: number; body: number; detail: number; tail: number } {
  // The prompt's text and completion menu: while the agent works they make do with three rows,
  // the answer coming in needs the room; while it waits for an answer the prompt takes one.
  const prompt =
    parts.asking !== undefined ? 1 : parts.busy ? 3 : Math.max(3, Math.min(8, Math.floor(rows / 4)));
  // The status line with its margin, the prompt's borders, and a spare row for the cursor.
  const available = Math.max(4, rows - prompt - 5);
  const asking = parts.asking === undefined ? 0 : parts.asking + MIN_BODY;
  let rest = available - parts.running - asking;
  // The title and a margin; a window on a longer list adds "… done above" and "… more".
  const todoRows = (n: number) => (n ? n + 2 + (n < parts.todos ? 2 : 0) : 0);
  // Without a request, two rows stay for the tail of the answer and its margin.
  const reserve = parts.asking === undefined ? 2 : 0;
  let todos = Math.min(parts.todos, parts.asking === undefined ? 8 : 3);
  while (todos > 0 && todoRows(todos) > rest - reserve) todos--;
  rest -= todoRows(todos);
  return {
    prompt,
    todos,
    body: MIN_BODY + Math.max(0, rest),
    detail: available,
    tail: Math.max(1, rest - 1),
  };
}

/**
 * The terminal UI. It draws the state the events build up, and turns keys into calls on the chat
 * engine; what the agent does is decided there, never here.
 */
export function App(props: AppProps) {
  const { engine, feed, interactions, commands, history, files, color } = props;
  const [state, dispatch] = useReducer(reduceBatch, props.initial);
  const [pending, setPending] = useState<Pending | undefined>();
  const [working, setWorking] = useState(false);
  const [queue, setQueue] = useState<string[]>(props.firstMessage ? [props.firstMessage] : []);
  const [detail, setDetail] = useState<number | undefined>();
  const [notice, setNotice] = useState<string | undefined>();
  const [, setFilesListed] = useState(0);
  const lastCtrlC = useRef(0);
  const noticeTimer = useRef<NodeJS.Timeout | undefined>(undefined);
  const { exit } = useApp();
  const { write } = useStdout();
  const { columns, rows } = useWindowSize();

  useEffect(() => feed.attach(dispatch), [feed]);
  // A request comes straight from the agent, ahead of the events batched for the next frame:
  // those go first, so the call being approved is on screen with it.
  useEffect(
    () =>
      interactions.watch((current) => {
        feed.flush();
        setPending(current);
        // What the agent asks comes before looking at an old call.
        if (current) setDetail(undefined);
      }),
    [interactions, feed],
  );

  const { transcript } = state;
  useLayoutEffect(() => {
    if (transcript.items.length)
      dispatch([{ type: "ui.printed", key: transcript.key, count: transcript.items.length }]);
  }, [transcript]);
  const reprint = useReprintOnResize(transcript, dispatch, write, columns);
  // A notice's timer must not keep the process alive once the UI is gone.
  useEffect(() => () => clearTimeout(noticeTimer.current), []);

  const quit = useCallback(() => exit(), [exit]);

  const screen: Screen = {
    show: (title, text) => feed.push({ type: "ui.block", title, text }),
    note: (text, tone = "dim") => feed.push({ type: "ui.line", text, tone }),
    refresh: () =>
      feed.push({ type: "ui.info", model: engine.session.model.id, approval: engine.approvalMode }),
    restart: (events: StampedEvent[] = []) => {
      feed.push({ type: "ui.reset" });
      feed.flush();
      reprint.forget();
      write(CLEAR_SCREEN);
      feed.push({
        type: "ui.info",
        sessionId: engine.session.id,
        model: engine.session.model.id,
        approval: engine.approvalMode,
      });
      for (const event of events) feed.push(event);
      feed.push({ type: "ui.replayed" });
    },
    exit: quit,
  };

  /** A failure of a command or of the agent is shown, never thrown into the UI. */
  const guarded = async (work: () => Promise<unknown> | unknown) => {
    try {
      await work();
    } catch (error) {
      screen.note(`✗ ${error instanceof Error ? error.message : String(error)}`, "error");
    }
  };

  /** Runs one submitted line: a message, a /command or a !command. */
  const run = async (text: string) => {
    setWorking(true);
    const command = parseCommand(text);
    await guarded(async () => {
      if (text.startsWith("!")) return engine.submit({ type: "shell", command: text.slice(1).trim() });
      if (!command) return engine.submit({ type: "user_input", mode: "chat", text });
      const found = findCommand(commands, command.name);
      if (!found?.startsTurn) feed.push({ type: "ui.user", text });
      if (found) return found.run(screen, command.arg);
      screen.note(unknownCommand(commands, command.name), "warn");
    });
    setWorking(false);
  };

  // Messages typed while cairn works wait their turn, in order.
  useEffect(() => {
    const [next, ...rest] = queue;
    if (working || next === undefined) return;
    setQueue(rest);
    void run(next);
  });

  const submit = (text: string) => {
    const command = parseCommand(text);
    const found = command && findCommand(commands, command.name);
    if (command && found?.anytime && working) {
      feed.push({ type: "ui.user", text });
      void guarded(() => found.run(screen, command.arg));
      return;
    }
    setQueue((q) => [...q, text]);
  };

  useInput((input, key) => {
    if (key.ctrl && input === "c") {
      const now = Date.now();
      if (now - lastCtrlC.current < DOUBLE_PRESS_MS) return quit();
      lastCtrlC.current = now;
      engine.interrupt();
      setQueue([]);
      setNotice("Ctrl-C again to exit");
      clearTimeout(noticeTimer.current);
      noticeTimer.current = setTimeout(() => setNotice(undefined), DOUBLE_PRESS_MS);
      return;
    }
    if (key.ctrl && input === "o") {
      if (interactions.current) return;
      setDetail((d) =>
        d === undefined && state.recentTools.length ? state.recentTools.length - 1 : undefined,
      );
      return;
    }
    if (key.escape) {
      if (detail !== undefined) return setDetail(undefined);
      if (interactions.current || working) {
        engine.interrupt();
        setQueue([]);
      }
      return;
    }
    if (detail !== undefined && (key.upArrow || key.downArrow)) {
      const last = state.recentTools.length - 1;
      setDetail((d) => Math.max(0, Math.min(last, (d ?? last) + (key.upArrow ? -1 : 1))));
    }
  });

  const suggest = (editor: EditorState): Suggestion[] => {
    const { start, word } = wordAtCursor(editor);
    if (start === 0 && word.startsWith("/") && !editor.text.includes(" ")) {
      return commands
        .filter((c) => `/${c.name}`.startsWith(word.toLowerCase()))
        .slice(0, MAX_SUGGESTIONS)
        .map((c) => ({
          value: `/${c.name}`,
          hint: `${c.args ? `${c.args}  ` : ""}${c.summary}`,
          submit: !c.args,
        }));
    }
    if (word.startsWith("@") && word.length > 1) {
      const list = files.current(() => setFilesListed((n) => n + 1));
      return rankPaths(word.slice(1), list).map((file) => ({ value: `@${file}` }));
    }
    return [];
  };

  const width = Math.max(20, columns);
  const waiting = pending !== undefined;
  const busy = state.busy || working;
  const running = state.running.slice(-3);
  const agents = state.agents.slice(-4);
  const budget = liveRows(rows, {
    busy,
    todos: state.todos.length,
    running: running.length + agents.length,
    asking: pending && (pending.kind === "approval" ? approvalChrome(pending.request) : QUESTION_CHROME),
  });
  const detailCall = detail === undefined ? undefined : state.recentTools[detail];

  return (
    <ColorContext value={color}>
      <Static key={transcript.key} items={transcript.items}>
        {(item) => (
          <Box key={item.id} flexDirection="column" width={width}>
            <TranscriptItem item={item} width={width} />
          </Box>
        )}
      </Static>
      <Box flexDirection="column" width={width}>
        {detailCall ? (
          <DetailView
            call={detailCall}
            index={detail ?? 0}
            count={state.recentTools.length}
            rows={budget.detail}
          />
        ) : (
          <>
            {agents.map((agent) => (
              <AgentLine key={agent.id} agent={agent} />
            ))}
            {running.map((call) => (
              <ToolLine key={call.callId} call={call} />
            ))}
            {state.stream.text.trim() !== "" && !waiting && (
              <Box marginTop={1}>
                <Text>{streamTail(state.stream.text, width, budget.tail)}</Text>
              </Box>
            )}
            {pending?.kind === "approval" && (
              <ApprovalPanel
                key={pending.requestId}
                request={pending.request}
                previewLines={budget.body}
                onAnswer={(reply) => interactions.answerApproval(reply)}
              />
            )}
            {pending?.kind === "question" && (
              <QuestionPanel
                question={pending.question}
                maxLines={budget.body}
                onAnswer={(answer) => interactions.answerQuestion(answer)}
              />
            )}
            {budget.todos > 0 && (
              <Box marginTop={1}>
                <TodoPanel todos={state.todos} maxLines={budget.todos} />
              </Box>
            )}
          </>
        )}
        <Box marginTop={1}>
          <StatusLine
            status={state.status}
            busy={busy}
            usage={state.usage}
            model={state.model}
            approval={state.approval}
            turnStartedAt={state.turnStartedAt}
            notice={notice ?? (queue.length ? `${queue.length} queued` : undefined)}
          />
        </Box>
        <Prompt
          active={!waiting && detail === undefined}
          history={history}
          suggest={suggest}
          onSubmit={submit}
          {...(props.onUnsent ? { onUnsent: props.onUnsent } : {})}
          pasteAs={(pasted) => droppedImage(pasted, engine.session.workspace)}
          clipboardImage={async () => {
            const pasted = await pasteClipboardImage(
              path.join(dataDir(engine.session.env), "pasted-images"),
              engine.session.workspace,
            );
            if ("problem" in pasted) screen.note(pasted.problem, "warn");
            return "mention" in pasted ? pasted.mention : undefined;
          }}
          maxLines={budget.prompt}
          placeholder={
            busy
              ? "Esc interrupts · what you send now waits its turn"
              : "Ask cairn · /help · @file · !command"
          }
        />
      </Box>
    </ColorContext>
  );
}
