/**
 * A failure the model should see and can correct (bad path, ambiguous edit, missing file).
 * The dispatcher turns it into that call's error result; any other exception is a bug and is
 * reported as an internal error.
 */
export class ToolError extends Error {
  readonly data?: unknown;

  constructor(message: string, data?: unknown) {
    super(message);
    this.name = "ToolError";
    this.data = data;
  }
}
