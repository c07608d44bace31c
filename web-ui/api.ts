/**
 * The dashboard's calls to the API. The browser sends the token's cookie (set when the printed
 * URL was opened) with each of them, as with the event streams.
 */
import type { CostsView, Info, SessionDetail, SessionView, StartRequest } from "../src/server/schemas.js";

export type { CostsView, Info, SessionDetail, SessionView, StartRequest };

export class RequestFailed extends Error {
  override name = "RequestFailed";
  readonly status: number;

  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

async function call<T>(method: "GET" | "POST", path: string, body?: unknown): Promise<T> {
  const response = await fetch(path, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const data = (await response.json().catch(() => ({}))) as { error?: string };
  if (!response.ok) throw new RequestFailed(response.status, data.error ?? response.statusText);
  return data as T;
}

export const api = {
  info: () => call<Info>("GET", "/api/info"),
  sessions: (query: Record<string, string>) =>
    call<{ sessions: SessionView[] }>("GET", `/api/sessions?${new URLSearchParams(query)}`),
  session: (id: string) => call<SessionDetail>("GET", `/api/sessions/${encodeURIComponent(id)}`),
  start: (request: StartRequest) => call<{ session: SessionView }>("POST", "/api/sessions", request),
  message: (id: string, text: string) =>
    call<unknown>("POST", `/api/sessions/${encodeURIComponent(id)}/messages`, { text }),
  approve: (id: string, requestId: string, choice: string, reason?: string) =>
    call<unknown>(
      "POST",
      `/api/sessions/${encodeURIComponent(id)}/approvals/${encodeURIComponent(requestId)}`,
      {
        choice,
        ...(reason ? { reason } : {}),
      },
    ),
  answer: (id: string, requestId: string, answer: string | null) =>
    call<unknown>(
      "POST",
      `/api/sessions/${encodeURIComponent(id)}/questions/${encodeURIComponent(requestId)}`,
      {
        answer,
      },
    ),
  cancel: (id: string) => call<unknown>("POST", `/api/sessions/${encodeURIComponent(id)}/cancel`),
  resume: (id: string) =>
    call<{ session: SessionView }>("POST", `/api/sessions/${encodeURIComponent(id)}/resume`),
  costs: (query: Record<string, string>) =>
    call<CostsView>("GET", `/api/costs?${new URLSearchParams(query)}`),
};

/** Where a session's events stream from. */
export function eventsUrl(id: string): string {
  return `/api/sessions/${encodeURIComponent(id)}/events`;
}
