/** The dashboard: three pages behind the hash (#/, #/sessions/<id>, #/costs), drawn from the API. */
import { costsPage } from "./costs.js";
import { fill, h } from "./dom.js";
import { sessionPage } from "./session.js";
import { sessionsPage } from "./sessions.js";

const root = document.getElementById("app") as HTMLElement;
let current: AbortController | undefined;

async function route(): Promise<void> {
  current?.abort();
  const controller = new AbortController();
  current = controller;
  const hash = location.hash.replace(/^#/, "") || "/";
  const session = /^\/sessions\/([^/]+)$/.exec(hash);
  for (const link of document.querySelectorAll<HTMLAnchorElement>("nav a"))
    link.classList.toggle(
      "current",
      link.getAttribute("href") === (hash.startsWith("/costs") ? "#/costs" : "#/"),
    );
  try {
    if (session?.[1]) await sessionPage(root, decodeURIComponent(session[1]), controller.signal);
    else if (hash === "/costs") await costsPage(root, controller.signal);
    else await sessionsPage(root, controller.signal);
  } catch (error) {
    if (!controller.signal.aborted)
      fill(root, h("p", { class: "error", role: "alert" }, (error as Error).message));
  }
}

window.addEventListener("hashchange", () => void route());
void route();
