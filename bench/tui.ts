import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { PassThrough, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { conversationOn } from "../src/agent/conversation.js";
import { Session } from "../src/agent/session.js";
import { buildResult } from "../src/agent/settle.js";
import { configSchema } from "../src/config/schema.js";
import type { CairnEvent } from "../src/events/types.js";
import { WorkspaceFileList } from "../src/ui/tui/complete.js";
import { ActionFeed } from "../src/ui/tui/feed.js";
import { PromptHistory } from "../src/ui/tui/history.js";
import { Interactions } from "../src/ui/tui/interactions.js";
import { loadTui } from "../src/ui/tui/load.js";
import { initialState } from "../src/ui/tui/state.js";
import type { BenchResult, Figure } from "./lib/report.js";
import { nowMs, quantile, sum } from "./lib/stats.js";

export interface TuiBenchOptions {
  /** Lines of the streamed answer. */
  lines: number;
  /** Turns of the long session. */
  turns: number;
  /** How long to watch the idle UI, and a model streaming at its own pace. */
  idleMs: number;
  /** Words of the one long paragraph, with no line break in it. */
  words: number;
}

export const TUI_FULL: TuiBenchOptions = { lines: 2000, turns: 200, idleMs: 3000, words: 3000 };
export const TUI_SMOKE: TuiBenchOptions = { lines: 200, turns: 20, idleMs: 500, words: 600 };

/** Deltas a model sends per 10 ms tick: 4,000 a second, faster than any model streams. */
const DELTAS_PER_TICK = 40;
/** A fast model as it is: about 50 tokens a second, a delta every 20 ms. */
const MODEL_DELTA_MS = 20;

/** A terminal that takes everything and keeps only the count of bytes, 100×30 like a laptop's. */
class NullTerminal extends Writable {
  readonly isTTY = true;
  readonly columns = 100;
  readonly rows = 30;
  bytes = 0;

  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: () => void): void {
    this.bytes += chunk.length;
    done();
  }
}

/** A keyboard nobody types on. */
function idleKeyboard(): NodeJS.ReadStream {
  return Object.assign(new PassThrough(), {
    isTTY: true,
    setRawMode: () => undefined,
  }) as unknown as NodeJS.ReadStream;
}

/** An answer of `lines` lines: paragraphs, lists and code blocks, as models write them. */
function longAnswer(lines: number): string {
  const out: string[] = [];
  for (let i = 0; out.length < lines; i++) {
    out.push(
      `## Part ${i}`,
      "",
      `This part explains step ${i} of the change, with \`inline code\` and **emphasis**.`,
      "",
    );
    out.push(
      "```ts",
      ...Array.from({ length: 12 }, (_, j) => `const value${j} = compute(${i}, ${j}); // line ${j}`),
      "```",
      "",
    );
    out.push(...Array.from({ length: 4 }, (_, j) => `- item ${j} of part ${i}`), "");
  }
  return out.slice(0, lines).join("\n");
}

/** The text in pieces the size models stream: a few characters each. */
function deltas(text: string): string[] {
  return text.match(/[\s\S]{1,4}/g) ?? [];
}

const turnEvents = (turn: number): CairnEvent[] => [
  { type: "turn.started", turn: turn + 2, mode: "chat", input: `task number ${turn}` },
  { type: "status", status: "thinking" },
  ...deltas(`Looking at the file for task ${turn}.\n\n`).map(
    (text): CairnEvent => ({ type: "message.delta", text }),
  ),
  { type: "status", status: "running_tools" },
  {
    type: "tool.call",
    call_id: `c${turn}`,
    tool: "edit_file",
    kind: "edit",
    title: `edit_file src/f${turn}.ts`,
    args: { path: `src/f${turn}.ts` },
    permission: "write",
  },
  {
    type: "tool.result",
    call_id: `c${turn}`,
    tool: "edit_file",
    ok: true,
    output: `Edited src/f${turn}.ts`,
    data: {
      kind: "file_change",
      path: `src/f${turn}.ts`,
      diff: `@@ -1,3 +1,3 @@\n a\n-old ${turn}\n+new ${turn}\n b\n`,
    },
    changed_files: [`src/f${turn}.ts`],
    duration_ms: 3,
  },
  { type: "todos", todos: [{ id: "1", content: `step of task ${turn}`, status: "completed" }] },
  { type: "status", status: "thinking" },
  ...deltas(`Done: task ${turn} is fixed, and the tests pass.\n\nNothing else changed.`).map(
    (text): CairnEvent => ({ type: "message.delta", text }),
  ),
  { type: "message", text: `Done: task ${turn} is fixed, and the tests pass.\n\nNothing else changed.` },
  {
    type: "usage",
    phase: "execution",
    model: "openai/gpt-4o",
    input_tokens: 1000,
    output_tokens: 30,
    cached_input_tokens: 800,
    cache_write_tokens: 0,
    reasoning_tokens: 0,
    cost_usd: 0.001,
    duration_ms: 500,
    tokens_per_second: 60,
  },
];

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * A paragraph of `words` words streamed in a model's few-character deltas, a tick's worth at a
 * time: the CPU per delta and the frame times of its first tenth and of its last, which a
 * drawing that grows with the paragraph sets apart.
 */
async function streamParagraph(
  words: number,
  emit: (event: CairnEvent) => void,
  frames: number[],
): Promise<{
  deltas: number;
  early: number;
  late: number;
  earlyFrame: number;
  lateFrame: number;
  printCpuMs: number;
}> {
  const paragraphOf = (count: number) =>
    `START ${Array.from({ length: count }, (_, i) => `word${i}`).join(" ")} END`;
  const stream = async (text: string) => {
    const ticks: Array<{ cpuMs: number; frames: number[] }> = [];
    const pieces = deltas(text);
    for (let i = 0; i < pieces.length; i += DELTAS_PER_TICK) {
      const before = frames.length;
      const { cpuMs } = await measure(async () => {
        for (const piece of pieces.slice(i, i + DELTAS_PER_TICK))
          emit({ type: "message.delta", text: piece });
        await pause(10);
      });
      ticks.push({ cpuMs, frames: frames.slice(before) });
    }
    return { ticks, pieces };
  };
  // A short one first, so that the first tenth measured is not the code being compiled.
  await stream(`${paragraphOf(Math.ceil(words / 10))}\n\n`);
  const text = paragraphOf(words);
  const { ticks, pieces } = await stream(text);
  // The paragraph ends: it is printed whole, as Markdown, once.
  const printed = await measure(async () => {
    emit({ type: "message", text });
    await pause(50);
  });
  const tenth = Math.max(1, Math.floor(ticks.length / 10));
  // The median tick: a busy machine's stalls fall on some ticks, not on where the paragraph is.
  const perDelta = (part: typeof ticks) =>
    quantile(
      part.map((tick) => tick.cpuMs),
      0.5,
    ) / DELTAS_PER_TICK;
  const p95 = (part: typeof ticks) =>
    quantile(
      part.flatMap((tick) => tick.frames),
      0.95,
    );
  const [first, last] = [ticks.slice(0, tenth), ticks.slice(-tenth)];
  return {
    deltas: pieces.length,
    early: perDelta(first),
    late: perDelta(last),
    earlyFrame: p95(first),
    lateFrame: p95(last),
    printCpuMs: printed.cpuMs,
  };
}

/**
 * How much `late` is of `early`, with what each was. Where `early` took no CPU the kernel counted
 * (its clock ticks are coarser than a turn on a quiet stretch; a busy machine's share can round
 * to nothing), or nothing was drawn, there is nothing to divide by: said, not a figure.
 */
function growth(late: number, early: number, note: string): Pick<Figure, "value" | "note"> {
  const value = late / early;
  if (early > 0 && Number.isFinite(value)) return { value, note };
  return { value: null, note: `${note}: too little at the start to compare with` };
}

/** Garbage collection on demand, so the heap measured is what is kept, not what awaits collection. */
function collector(): () => void {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  return () => {
    gc();
    gc();
  };
}

/** CPU milliseconds (user + system) of this process while `work` runs, with its wall time. */
async function measure(work: () => Promise<void>): Promise<{ cpuMs: number; wallMs: number }> {
  const cpu = process.cpuUsage();
  const started = nowMs();
  await work();
  const used = process.cpuUsage(cpu);
  return { cpuMs: (used.user + used.system) / 1000, wallMs: nowMs() - started };
}

/**
 * The terminal UI fed through its real path (session bus → feed → reducer → Ink) with a 2,000
 * line answer streamed faster than any model, then a 200-turn session, then nothing at all:
 * CPU per event, frame times, bytes written, idle CPU and the heap kept as turns pile up.
 */
export async function benchTui(options: TuiBenchOptions): Promise<BenchResult> {
  const started = nowMs();
  const gc = collector();
  const workspace = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-bench-tui-")));
  const terminal = new NullTerminal();
  const frames: number[] = [];
  const session = await Session.create({
    config: configSchema.parse({}),
    modelId: "openai/gpt-4o",
    workspace,
    mode: "chat",
    attended: true,
    env: { OPENAI_API_KEY: "unused: no model is called", HOME: workspace },
  });
  const conversation = await conversationOn(async () => session);
  const feed = new ActionFeed();
  conversation.subscribe(feed.push);
  const { startTui } = await loadTui({ color: true });
  const instance = startTui(
    {
      conversation,
      dataDir: workspace,
      feed,
      interactions: new Interactions(conversation),
      commands: [],
      history: new PromptHistory(),
      files: new WorkspaceFileList(workspace),
      initial: initialState({
        model: session.main.model.id,
        approval: "ask",
        sessionId: session.id,
        workspace,
      }),
      color: true,
    },
    {
      stdout: terminal as unknown as NodeJS.WriteStream,
      stdin: idleKeyboard(),
      onRender: ({ renderTime }) => frames.push(renderTime),
    },
  );
  const emit = (event: CairnEvent) => session.bus.emit(event);
  try {
    // 1. One long answer, streamed.
    const pieces = deltas(longAnswer(options.lines));
    emit({
      type: "session.started",
      mode: "chat",
      task: "explain everything",
      model: "openai/gpt-4o",
      workspace,
    });
    emit({ type: "turn.started", turn: 1, mode: "chat", input: "explain everything" });
    emit({ type: "status", status: "thinking" });
    await pause(100);
    const streamFrames = frames.length;
    const streamBytes = terminal.bytes;
    const stream = await measure(async () => {
      for (let i = 0; i < pieces.length; i += DELTAS_PER_TICK) {
        for (const text of pieces.slice(i, i + DELTAS_PER_TICK)) emit({ type: "message.delta", text });
        await pause(10);
      }
      emit({ type: "message", text: pieces.join("") });
      await pause(100);
    });
    const streamFrameTimes = frames.slice(streamFrames);

    // 2. The same at a model's pace: what a person's machine spends while an answer comes in.
    const paced = await measure(async () => {
      for (let i = 0; i * MODEL_DELTA_MS < options.idleMs; i++) {
        emit({ type: "message.delta", text: pieces[i % pieces.length] ?? "x" });
        await pause(MODEL_DELTA_MS);
      }
    });
    emit({ type: "message", text: "" });

    // 3. One long paragraph, no line break in it (test/e2e/firstMinute's 3,000 words): drawing a
    // frame must cost the same at its end as at its start, or the screen falls behind the model.
    const paragraph = await streamParagraph(options.words, emit, frames);

    // 4. A long session: the cost of a turn must not grow with the turns before it.
    const turnCpu: number[] = [];
    const heap: number[] = [];
    const perTurn = turnEvents(0).length;
    const session200 = await measure(async () => {
      for (let turn = 0; turn < options.turns; turn++) {
        const { cpuMs } = await measure(async () => {
          for (const event of turnEvents(turn)) emit(event);
          await pause(40);
          emit({
            type: "turn.finished",
            turn: turn + 2,
            result: buildResult(session, {
              status: "completed",
              reason: "answered",
              summary: "",
              iterations: 1,
            }),
          });
          await pause(40);
        });
        turnCpu.push(cpuMs);
        if (turn === Math.floor(options.turns / 10) || turn === options.turns - 1) {
          gc();
          heap.push(process.memoryUsage().heapUsed / 1e6);
        }
      }
    });

    // 5. Idle: nothing streams, nobody types.
    await pause(200);
    const idle = await measure(() => pause(options.idleMs));

    const tenth = Math.max(1, Math.floor(options.turns / 10));
    const early = sum(turnCpu.slice(0, tenth)) / tenth;
    const late = sum(turnCpu.slice(-tenth)) / tenth;
    const streamEvents = pieces.length + 1;
    const sessionEvents = options.turns * (perTurn + 1);
    const figures: Figure[] = [
      {
        name: `stream ${options.lines} lines: CPU per event`,
        value: stream.cpuMs / streamEvents,
        unit: "ms",
        target: { on: "value", op: "<=", limit: 0.1 },
      },
      {
        name: "stream: CPU while streaming",
        value: (100 * stream.cpuMs) / stream.wallMs,
        unit: "%",
        note: `${streamEvents} deltas at ${DELTAS_PER_TICK * 100}/s`,
      },
      {
        name: "stream at a model's pace: CPU",
        value: (100 * paced.cpuMs) / paced.wallMs,
        unit: "%",
        target: { on: "value", op: "<=", limit: 10 },
        note: `a delta every ${MODEL_DELTA_MS} ms`,
      },
      {
        name: "stream: frame render time (p95)",
        value: quantile(streamFrameTimes, 0.95),
        unit: "ms",
        target: { on: "value", op: "<=", limit: 16 },
      },
      {
        name: `paragraph ${options.words} words: CPU per delta, last tenth vs first`,
        ...growth(
          paragraph.late,
          paragraph.early,
          `${paragraph.early.toFixed(3)} → ${paragraph.late.toFixed(3)} ms`,
        ),
        unit: "×",
        target: { on: "value", op: "<=", limit: 1.5 },
      },
      {
        name: "paragraph: frame render time, last tenth vs first (p95)",
        ...growth(
          paragraph.lateFrame,
          Math.max(paragraph.earlyFrame, 0.01),
          `${paragraph.earlyFrame.toFixed(2)} → ${paragraph.lateFrame.toFixed(2)} ms`,
        ),
        unit: "×",
        target: { on: "value", op: "<=", limit: 1.5 },
      },
      {
        name: `session ${options.turns} turns: CPU per event`,
        value: session200.cpuMs / sessionEvents,
        unit: "ms",
        target: { on: "value", op: "<=", limit: 0.5 },
      },
      {
        name: "session: last turns' CPU vs first turns'",
        ...growth(late, early, `${early.toFixed(2)} → ${late.toFixed(2)} ms a turn`),
        unit: "×",
        target: { on: "value", op: "<=", limit: 1.5 },
      },
      {
        name: `session: heap growth turn ${tenth}→${options.turns}`,
        value: (heap.at(-1) ?? 0) - (heap[0] ?? 0),
        unit: "MB",
        target: { on: "value", op: "<=", limit: 5 },
      },
      {
        name: "idle: CPU",
        value: (100 * idle.cpuMs) / idle.wallMs,
        unit: "%",
        target: { on: "value", op: "<=", limit: 1 },
      },
    ];
    return {
      id: "tui",
      title: "terminal UI",
      figures,
      details: {
        stream: {
          lines: options.lines,
          deltas: pieces.length,
          cpu_ms: stream.cpuMs,
          wall_ms: stream.wallMs,
          frames: streamFrameTimes.length,
          frame_ms_median: quantile(streamFrameTimes, 0.5),
          bytes_written: terminal.bytes - streamBytes,
        },
        paragraph,
        session: {
          turns: options.turns,
          events: sessionEvents,
          cpu_ms: session200.cpuMs,
          turn_cpu_ms_first_tenth: early,
          turn_cpu_ms_last_tenth: late,
          heap_mb: heap,
        },
        idle: { wall_ms: idle.wallMs, cpu_ms: idle.cpuMs },
      },
      durationMs: nowMs() - started,
    };
  } finally {
    instance.unmount();
    await conversation.close();
    rmSync(workspace, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const result = await benchTui(process.argv.includes("--smoke") ? TUI_SMOKE : TUI_FULL);
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}
