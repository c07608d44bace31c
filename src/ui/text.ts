import { stripVTControlCharacters, styleText } from "node:util";
import type { RunResult, StampedEvent, TodoItem, UsageTotals } from "../events/types.js";
import { formatCost, formatDuration } from "../platform/format.js";
import { firstLine } from "../platform/text.js";
import { wrapToWidth } from "../platform/wrap.js";
import { callTarget, describeEvent, type Tone } from "./eventLines.js";
import { agentEnding, endingLine, outputSpeed, resultTotals, STATUS_LABEL, usageLine } from "./format.js";
import { renderMarkdown } from "./markdown.js";

type Output = NodeJS.WritableStream & { isTTY?: boolean; columns?: number };

export interface TextRendererOptions {
  /** Where the answer goes: what a script that runs cairn reads. */
  out: Output;
  /** Where everything else goes (the plan, tool lines, status, the closing line); `out` if absent. */
  progress?: Output;
  color: boolean;
  /** Markdown rendering and a live status line: only for a person at a terminal. */
  interactive: boolean;
  /**
   * `--verbose`: each model call's tokens and cost, status changes, the model's reasoning, the
   * arguments of each call, more of each tool's output and whole diffs.
   */
  verbose?: boolean;
  /** A prompt at this terminal asks the person each approval and question: they are not said twice. */
  askedAtTerminal?: boolean;
}

type Style = Parameters<typeof styleText>[0];

const MAX_DIFF_LINES = 60;
/** Lines of a tool's output shown with --verbose (the first line otherwise). */
const VERBOSE_OUTPUT_LINES = 20;
/** The most of a failed call's message shown: enough for a refusal and the rule that would allow it. */
const MAX_FAILURE_CHARS = 1_000;

const TONE_STYLE: Record<Exclude<Tone, "plain">, Style> = {
  dim: "dim",
  ok: "green",
  warn: "yellow",
  error: "red",
  accent: "bold",
};

/**
 * The line-by-line renderer: what `cairn do` prints in a terminal, in a pipe and in CI. It
 * reads only events, so the same run renders the same way live or replayed.
 */
export class TextRenderer {
  private readonly options: TextRendererOptions;
  private statusText = "";
  private statusShown = false;
  private streamedChars = 0;
  private generationSeconds = 0;
  private outputTokens = 0;
  /** Requests since the last ending that did not fit the model's window whole. */
  private cutToFit = 0;
  private pending: Promise<void> = Promise.resolve();
  private readonly readTools = new Set<string>();
  private readonly todoStates = new Map<string, TodoItem["status"]>();

  private readonly progress: Output;

  constructor(options: TextRendererOptions) {
    this.options = options;
    this.progress = options.progress ?? options.out;
  }

  private style(format: Style, text: string): string {
    return this.options.color ? styleText(format, text) : text;
  }

  private clearStatus(): void {
    if (this.statusShown) {
      this.progress.write("\r\x1b[2K");
      this.statusShown = false;
    }
  }

  private showStatus(): void {
    if (!this.options.interactive || !this.statusText) return;
    const tokens = this.streamedChars > 0 ? ` · ~${Math.ceil(this.streamedChars / 4)} tokens` : "";
    this.progress.write(`\r\x1b[2K${this.style("dim", `${this.statusText}…${tokens}`)}`);
    this.statusShown = true;
  }

  private line(text: string, to: Output = this.progress): void {
    this.clearStatus();
    to.write(`${text}\n`);
    this.showStatus();
  }

  /** Resolves once everything queued so far is written (Markdown renders asynchronously). */
  flush(): Promise<void> {
    return this.pending;
  }

  handle = (event: StampedEvent): void => {
    this.pending = this.pending.then(() => this.render(event));
  };

  /**
   * A sub-agent's events: its status, its tool calls under its id, its errors. Its streamed text
   * and answer are its own business: what it found reaches the main answer through its caller.
   */
  private renderSubAgent(event: StampedEvent, id: string): void {
    const tag = this.style("magenta", id);
    switch (event.type) {
      case "agent.status":
        this.renderAgentStatus(event, tag);
        break;
      case "tool.call":
        this.line(this.style("dim", `  ${id} ● ${event.title}`));
        break;
      case "error":
        this.line(`  ${tag} ${this.style("red", `✗ ${event.message}`)}`);
        break;
      case "usage":
        this.countUsage(event);
        break;
    }
  }

  private countUsage(event: Extract<StampedEvent, { type: "usage" }>): void {
    this.outputTokens += event.output_tokens;
    if (event.cut_to_fit) this.cutToFit++;
    if (event.tokens_per_second) this.generationSeconds += event.output_tokens / event.tokens_per_second;
  }

  private renderAgentStatus(event: Extract<StampedEvent, { type: "agent.status" }>, tag: string): void {
    if (event.status === "running") {
      const model = event.model ? this.style("dim", ` (${event.model})`) : "";
      this.line(`${this.style("magenta", "◆")} ${tag} ${event.task}${model}`);
      return;
    }
    const style: Style =
      event.status === "done" ? "green" : event.status === "over_budget" ? "yellow" : "red";
    this.line(`${this.style(style, "◆")} ${tag} ${this.style(style, agentEnding(event))}`);
  }

  private async render(event: StampedEvent): Promise<void> {
    if (event.agent) return this.renderSubAgent(event, event.agent);
    switch (event.type) {
      case "status":
        this.statusText = `${STATUS_LABEL[event.status]}${event.detail ? `: ${event.detail}` : ""}`;
        this.streamedChars = 0;
        this.clearStatus();
        // A status line redraws in place at a terminal; elsewhere, verbose output logs each
        // change, and anything a status says besides itself (a model still reading its prompt) is logged.
        if ((this.options.verbose || event.detail) && !this.options.interactive)
          this.line(this.style("dim", `… ${this.statusText}`));
        this.showStatus();
        break;
      case "reasoning":
        if (this.options.verbose && event.text.trim())
          this.line(this.style("dim", event.text.trim().replace(/^/gm, "  ┊ ")));
        break;
      case "todos":
        this.renderTodos(event.todos);
        break;
      case "message.delta":
        this.streamedChars += event.text.length;
        this.showStatus();
        break;
      case "tool.call":
        if (event.permission === "read") this.readTools.add(event.call_id);
        this.line(
          `${this.style("cyan", "●")} ${this.style("bold", event.tool)} ${callTarget(event)}`.trimEnd(),
        );
        if (this.options.verbose)
          this.line(this.style("dim", `  ${firstLine(JSON.stringify(event.args) ?? "", 400)}`));
        break;
      case "tool.result":
        this.renderToolResult(event);
        break;
      case "message":
        await this.renderAnswer(event.text);
        break;
      case "usage":
        this.countUsage(event);
        if (this.options.verbose) this.line(this.style("dim", this.callLine(event)));
        break;
      case "turn.finished":
        this.statusText = "";
        this.renderFinish(event.result);
        break;
      // The task or message is the person's own, said by the session's first line; a session's
      // end is its last turn's, said by that.
      case "turn.started":
      case "session.finished":
        break;
      case "approval.requested":
      case "question.asked":
        if (!this.options.askedAtTerminal) this.describe(event);
        break;
      default:
        this.describe(event);
    }
  }

  /**
   * An event in the words every front end uses for it; at a terminal, broken between words at its
   * width, since the terminal itself breaks inside them.
   */
  private describe(event: StampedEvent): void {
    const columns = this.progress.columns;
    for (const { text, tone } of describeEvent(event)) {
      const shown = this.toned(tone, text);
      this.line(columns ? wrapToWidth(shown, columns) : shown);
    }
  }

  /** One model call, for --verbose: which model, for what, what it took and cost. */
  private callLine(event: Extract<StampedEvent, { type: "usage" }>): string {
    const totals: UsageTotals = { ...event, calls: 1 };
    return `  · ${event.model} (${event.phase}) ${formatDuration(event.duration_ms)} · ${usageLine(totals, event.tokens_per_second)}`;
  }

  private toned(tone: Tone, text: string): string {
    return tone === "plain" ? text : this.style(TONE_STYLE[tone], text);
  }

  /**
   * The whole list when it is new, numbered; then, as each item is begun, its number only: each
   * TODO is named once in the log, and a finished one is implied by the next one begun. A list
   * that changes (a revised plan) is shown whole again.
   */
  private renderTodos(todos: TodoItem[]): void {
    const fresh =
      todos.some((todo) => !this.todoStates.has(todo.id)) || todos.length !== this.todoStates.size;
    if (fresh) {
      this.todoStates.clear();
      for (const [index, todo] of todos.entries()) {
        const mark = todo.status === "completed" ? "[x]" : todo.status === "in_progress" ? "[>]" : "[ ]";
        this.line(`  ${mark} ${index + 1}. ${todo.content}`);
      }
    }
    for (const [index, todo] of todos.entries()) {
      const was = this.todoStates.get(todo.id);
      this.todoStates.set(todo.id, todo.status);
      if (!fresh && was !== todo.status && todo.status === "in_progress")
        this.line(this.style("dim", `── step ${index + 1} of ${todos.length}`));
    }
  }

  private renderToolResult(event: Extract<StampedEvent, { type: "tool.result" }>): void {
    const time = this.style("dim", formatDuration(event.duration_ms));
    if (!event.ok) {
      // Why a call failed or was refused is said whole: its end often says how to allow it.
      const why = event.output.trim();
      const shown = why.length > MAX_FAILURE_CHARS ? `${why.slice(0, MAX_FAILURE_CHARS)}…` : why;
      this.line(`  ${this.style("red", "✗")} ${shown.replace(/\n/g, "\n    ")} ${time}`);
      return;
    }
    // What a read returns is content, not a message: its size says more than its first line.
    const lines = event.output.split("\n").length;
    const summary = this.readTools.has(event.call_id)
      ? `${lines} line${lines === 1 ? "" : "s"}`
      : firstLine(event.output, 160);
    // A command that ran but failed (tests that fail, a build that breaks) is not a success.
    const failed = event.data?.kind === "command" && event.data.exit_code !== 0;
    this.line(`  ${failed ? this.style("red", "✗") : this.style("green", "✓")} ${summary} ${time}`);
    if (this.options.verbose && !this.readTools.has(event.call_id)) this.renderOutput(event.output);
    if (event.data?.kind === "file_change" && event.data.diff) this.renderDiff(event.data.diff);
  }

  /** More of a tool's output than its first line, for --verbose. */
  private renderOutput(output: string): void {
    const lines = output.split("\n");
    if (lines.length <= 1) return;
    for (const l of lines.slice(1, VERBOSE_OUTPUT_LINES)) this.line(this.style("dim", `    ${l}`));
    if (lines.length > VERBOSE_OUTPUT_LINES)
      this.line(this.style("dim", `    … ${lines.length - VERBOSE_OUTPUT_LINES} more lines`));
  }

  private renderDiff(diff: string): void {
    const lines = diff.split("\n").filter((l) => !l.startsWith("===") && !l.startsWith("Index:"));
    const shown = this.options.verbose ? lines : lines.slice(0, MAX_DIFF_LINES);
    for (const l of shown) {
      const styled =
        l.startsWith("+") && !l.startsWith("+++")
          ? this.style("green", l)
          : l.startsWith("-") && !l.startsWith("---")
            ? this.style("red", l)
            : this.style("dim", l);
      this.line(`    ${styled}`);
    }
    if (lines.length > shown.length)
      this.line(this.style("dim", `    … ${lines.length - shown.length} more diff lines`));
  }

  private async renderAnswer(text: string): Promise<void> {
    if (!text) return;
    // A terminal that says it has 0 columns (a pty nobody sized) still gets the answer.
    const width = Math.min(this.options.out.columns || 100, 120);
    const body = this.options.interactive ? await renderMarkdown(text, width, this.options.color) : text;
    this.line(`\n${body}\n`, this.options.out);
  }

  private renderFinish(result: RunResult): void {
    const tps = outputSpeed(this.outputTokens, this.generationSeconds);
    const [status, ...rest] = endingLine(result, { unchecked: true, cutToFit: this.cutToFit }).split(" · ");
    this.cutToFit = 0;
    const statusStyle: Style =
      result.status === "completed" ? "green" : result.status === "unverified" ? "yellow" : "red";
    const allTime =
      result.workspace_cost_usd === undefined
        ? []
        : [`${formatCost(result.workspace_cost_usd)} all-time here`];
    const ending = [this.style(statusStyle, status ?? ""), ...rest].join(" · ");
    const spent = [usageLine(resultTotals(result), tps), ...allTime].join(" · ");
    const columns = this.progress.columns;
    const whole = `${ending} · ${spent}`;
    // Narrower than the line: how it ended, then what it cost, each broken between words.
    if (!columns || stripVTControlCharacters(whole).length <= columns) this.line(whole);
    else this.line(`${wrapToWidth(ending, columns)}\n${wrapToWidth(spent, columns)}`);
  }
}
