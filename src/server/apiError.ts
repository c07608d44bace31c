import type { ContentfulStatusCode } from "hono/utils/http-status";

/** A request the server refuses, with the status and the message the client gets. */
export class ApiError extends Error {
  override name = "ApiError";
  readonly status: ContentfulStatusCode;
  readonly extra: Record<string, unknown>;

  constructor(status: ContentfulStatusCode, message: string, extra: Record<string, unknown> = {}) {
    super(message);
    this.status = status;
    this.extra = extra;
  }
}
