/**
 * The context a request asks a server to run it in, for a server that runs each request in the
 * context the client names and silently cuts a longer prompt (Ollama's `num_ctx`: without it,
 * 4,096 tokens or less, whatever the model's window). Enough for the prompt and the answer's
 * cap, within the model's window; in steps, never shrinking within a session, because the server
 * reloads the model (and reads the whole prompt again) each time the number changes.
 */

/** The steps sizes grow in. */
export const CONTEXT_STEP = 8_192;
/** Room for the estimate's error until the server has counted a prompt itself. */
const MARGIN = 1.15;

export interface ContextSize {
  /** What the request is sent: a multiple of the step, at most the window. */
  tokens: number;
  /** The prompt and the answer's cap need more than the window: the server cuts what does not fit. */
  overflows: boolean;
}

export class ContextSizer {
  private current = 0;
  /** The server's count of a prompt over cairn's estimate of it, the largest seen (1 until it has counted). */
  private ratio = 1;
  private readonly window: number;
  private readonly floor: number;

  /**
   * `window` is the model's; `loaded` is the context the server runs it with when a request names
   * none (Ollama's Modelfile `num_ctx`): asking for no less keeps the model loaded as it is.
   */
  constructor(window: number, loaded?: number) {
    this.window = window;
    this.floor = Math.min(loaded ?? 0, window);
  }

  /** The context for a prompt estimated at `promptTokens` with an answer capped at `answerTokens`. */
  size(promptTokens: number, answerTokens: number): ContextSize {
    const needed = this.withMargin(promptTokens) + answerTokens;
    const stepped = Math.ceil(needed / CONTEXT_STEP) * CONTEXT_STEP;
    this.current = Math.min(this.window, Math.max(this.current, this.floor, stepped));
    return { tokens: this.current, overflows: needed > this.window };
  }

  /** A prompt estimated at `estimated` tokens, as the server will count it. */
  promptTokens(estimated: number): number {
    return Math.ceil(estimated * this.ratio);
  }

  /**
   * A prompt estimated at `estimated` tokens with room for the estimate's error: what the context
   * is sized for, so the answer's cap, sized from the same, leaves the sum within the window.
   */
  withMargin(estimated: number): number {
    return Math.ceil(this.promptTokens(estimated) * MARGIN);
  }

  /** The largest estimate of a prompt the server will count as no more than `tokens`. */
  estimateWithin(tokens: number): number {
    return Math.floor(tokens / this.ratio);
  }

  /** The server counted `counted` tokens in a prompt cairn estimated at `estimated`. */
  observe(estimated: number, counted: number): void {
    if (estimated > 0 && counted > estimated) this.ratio = Math.max(this.ratio, counted / estimated);
  }
}
