import path from "node:path";
import { Box, useApp, useStdout, useWindowSize } from "ink";
import { useCallback, useEffect, useReducer } from "react";
import type { Conversation } from "../../agent/conversation.js";
import { approvalChrome, QUESTION_CHROME } from "./Approval.js";
import { useAppKeys } from "./appKeys.js";
import type { Screen, SlashCommand } from "./commands.js";
import type { WorkspaceFileList } from "./complete.js";
import { ColorContext, StatusLine, Transcript } from "./components.js";
import type { ActionFeed } from "./feed.js";
import type { PromptHistory } from "./history.js";
import type { Interactions } from "./interactions.js";
import { LiveArea } from "./LiveArea.js";
import { useMessageQueue } from "./messageQueue.js";
import { useNotice } from "./notice.js";
import { Prompt } from "./Prompt.js";
import { droppedImage, pasteClipboardImage } from "./pastedImages.js";
import { usePrintedTranscript } from "./reprint.js";
import { usePendingRequest } from "./requests.js";
import { tuiScreen } from "./screen.js";
import { type Action, reduce, type TuiState } from "./state.js";
import { useSuggestions } from "./suggestions.js";
import { useToolDetail } from "./toolDetail.js";

export interface AppProps {
  conversation: Conversation;
  /** cairn's data folder, where pasted images are kept. */
  dataDir: string;
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

const reduceBatch = (state: TuiState, batch: Action[]): TuiState => batch.reduce(reduce, state);

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

/** Ctrl-V: the clipboard's image, saved with cairn's pasted images, as a mention; a problem is noted. */
function clipboardImage(
  dataDir: string,
  workspace: string,
  screen: Screen,
): () => Promise<string | undefined> {
  return async () => {
    const pasted = await pasteClipboardImage(path.join(dataDir, "pasted-images"), workspace);
    if ("problem" in pasted) screen.note(pasted.problem, "warn");
    return "mention" in pasted ? pasted.mention : undefined;
  };
}

/**
 * The terminal UI. It draws the state the events build up, and turns keys into ops of the
 * conversation; what the agent does is decided there, never here.
 */
export function App(props: AppProps) {
  const { conversation, feed, interactions, commands, color } = props;
  const { workspace } = conversation.view();
  const [state, dispatch] = useReducer(reduceBatch, props.initial);
  const { exit } = useApp();
  const { write } = useStdout();
  const { columns, rows } = useWindowSize();
  const detail = useToolDetail(state.recentTools.length);

  useEffect(() => feed.attach(dispatch), [feed]);
  // What the agent asks comes before looking at an old call.
  const pending = usePendingRequest(interactions, feed, detail.close);
  const reprint = usePrintedTranscript(state.transcript, dispatch, write, columns);
  const { notice, flash } = useNotice();
  const quit = useCallback(() => exit(), [exit]);
  const screen = tuiScreen({ conversation, feed, reprint, write, exit: quit });
  const messages = useMessageQueue({
    conversation,
    feed,
    commands,
    screen,
    firstMessage: props.firstMessage,
  });
  useAppKeys({
    conversation,
    interactions,
    detail,
    working: messages.working,
    clearQueue: messages.clear,
    flash,
    quit,
  });
  const suggest = useSuggestions(commands, props.files);

  const width = Math.max(20, columns);
  const busy = state.busy || messages.working;
  const running = state.running.slice(-3);
  const agents = state.agents.slice(-4);
  const budget = liveRows(rows, {
    busy,
    todos: state.todos.length,
    running: running.length + agents.length,
    asking: pending && (pending.kind === "approval" ? approvalChrome(pending.request) : QUESTION_CHROME),
  });

  return (
    <ColorContext value={color}>
      <Transcript transcript={state.transcript} width={width} />
      <Box flexDirection="column" width={width}>
        <LiveArea
          state={state}
          agents={agents}
          running={running}
          pending={pending}
          detail={detail.index}
          rows={budget}
          width={width}
          interactions={interactions}
        />
        <Box marginTop={1}>
          <StatusLine
            status={state.status}
            busy={busy}
            usage={state.usage}
            model={state.model}
            approval={state.approval}
            turnStartedAt={state.turnStartedAt}
            notice={notice ?? (messages.queued ? `${messages.queued} queued` : undefined)}
            width={width}
          />
        </Box>
        <Prompt
          active={pending === undefined && detail.index === undefined}
          history={props.history}
          suggest={suggest}
          onSubmit={messages.submit}
          {...(props.onUnsent ? { onUnsent: props.onUnsent } : {})}
          pasteAs={(pasted) => droppedImage(pasted, workspace)}
          clipboardImage={clipboardImage(props.dataDir, workspace, screen)}
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
