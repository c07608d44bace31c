import { api, type Info, type SessionView, type StartRequest } from "./api.js";
import { age, dollars, fill, h, shortPath, statusBadge, waitingLine } from "./dom.js";

const REFRESH_MS = 3000;

function select(name: string, label: string, options: string[], all = "any"): HTMLSelectElement {
  return h(
    "select",
    { name, "aria-label": label },
    h("option", { value: "" }, `${label}: ${all}`),
    ...options.map((option) => h("option", { value: option }, option)),
  );
}

function row(session: SessionView): HTMLElement {
  const open = () => {
    location.hash = `#/sessions/${session.id}`;
  };
  return h(
    "tr",
    {
      class: "session-row",
      "data-id": session.id,
      tabindex: "0",
      on: { click: open, keydown: (e) => e.key === "Enter" && open() },
    },
    h(
      "td",
      { class: "status" },
      statusBadge(session.status, session.live, session.waiting_for),
      session.live ? h("span", { class: "live-dot", title: "live" }) : null,
    ),
    h(
      "td",
      { class: "task" },
      h("a", { href: `#/sessions/${session.id}` }, session.task || "(nothing asked yet)"),
      session.waiting_for.length
        ? h("div", { class: "waiting" }, `waiting for: ${waitingLine(session.waiting_for)}`)
        : null,
    ),
    h("td", { class: "where", title: session.workspace }, shortPath(session.workspace)),
    h("td", { class: "model" }, `${session.model} · ${session.mode}`),
    h("td", { class: "number" }, dollars(session.usage.cost_usd ?? session.usage.known_cost_usd)),
    h("td", { class: "number", title: session.created_at }, age(session.created_at)),
  );
}

/** The form that starts a session in one of the server's workspaces. */
function newSessionForm(info: Info): HTMLElement {
  const error = h("p", { class: "error", role: "alert" });
  const form = h(
    "form",
    { class: "new-session" },
    h("textarea", { name: "task", rows: "2", placeholder: "What should cairn do?", required: true }),
    h(
      "div",
      { class: "form-row" },
      h(
        "select",
        { name: "mode", "aria-label": "mode" },
        ...info.modes.map((m) => h("option", { value: m }, m)),
      ),
      h(
        "select",
        { name: "workspace", "aria-label": "workspace" },
        ...info.workspaces.map((w) => h("option", { value: w }, w)),
      ),
      h(
        "select",
        { name: "approval", "aria-label": "approval" },
        ...info.approval_modes.map((a) => h("option", { value: a }, `approval: ${a}`)),
      ),
      h("input", { name: "model", placeholder: "model (default from config)", "aria-label": "model" }),
      h("button", { type: "submit", class: "primary" }, "Start"),
    ),
    error,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const text = (name: string) => String(data.get(name) ?? "").trim();
    try {
      const { session } = await api.start({
        mode: text("mode") as StartRequest["mode"],
        task: text("task"),
        workspace: text("workspace"),
        approval: text("approval") as StartRequest["approval"],
        ...(text("model") ? { model: text("model") } : {}),
      });
      location.hash = `#/sessions/${session.id}`;
    } catch (failure) {
      fill(error, (failure as Error).message);
    }
  });
  return h("details", { class: "card" }, h("summary", {}, "New session"), form);
}

/** The sessions list: newest first, filtered, refreshed while it is shown. */
export async function sessionsPage(root: HTMLElement, signal: AbortSignal): Promise<void> {
  const info = await api.info();
  const filters = h(
    "form",
    { class: "filters", role: "search" },
    select("status", "status", info.statuses),
    select("mode", "mode", info.modes),
    h("input", { name: "q", type: "search", placeholder: "task contains…", "aria-label": "task contains" }),
    h("input", {
      name: "workspace",
      type: "search",
      placeholder: "workspace folder",
      "aria-label": "workspace",
    }),
  );
  const body = h("tbody");
  const empty = h("p", { class: "muted" });
  fill(
    root,
    h("h1", {}, "Sessions"),
    newSessionForm(info),
    filters,
    h(
      "table",
      { class: "sessions" },
      h(
        "thead",
        {},
        h("tr", {}, ...["status", "task", "workspace", "model", "cost", "age"].map((c) => h("th", {}, c))),
      ),
      body,
    ),
    empty,
  );
  const refresh = async () => {
    const query = Object.fromEntries(
      [...new FormData(filters)]
        .filter(([, value]) => String(value).trim() !== "")
        .map(([k, v]) => [k, String(v)]),
    );
    const { sessions } = await api.sessions(query);
    if (signal.aborted) return;
    fill(body, ...sessions.map(row));
    fill(empty, sessions.length ? "" : "No sessions match.");
  };
  filters.addEventListener("input", () => void refresh());
  filters.addEventListener("submit", (event) => event.preventDefault());
  await refresh();
  const timer = setInterval(() => void refresh().catch(() => undefined), REFRESH_MS);
  signal.addEventListener("abort", () => clearInterval(timer));
}
