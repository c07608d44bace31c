import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stampedEventSchema } from "../../src/events/events.js";
import { Store } from "../../src/store/sessions.js";
import { makeHome, makeRepo, runCairn, spawnCairn } from "../helpers/cli.js";
import { RECORDING } from "../helpers/protocol.js";
import { tempDir } from "../helpers/temp.js";
import { scaled } from "../helpers/timeScale.js";
import {
  type RecordedRequest,
  type ScriptedServer,
  type ScriptedTurn,
  startScriptedServer,
} from "../support/scriptedServer.js";

const SCREENSHOTS = path.resolve("test-results");

/**
 * Each task gets its own turns, whichever session asks: a session's requests all carry its task.
 * Streaming is slowed a little so the page can be seen filling in.
 */
const SCRIPTS: Record<string, ScriptedTurn[]> = {
  "say hello from gpt": [{ text: "Hello from GPT-4o.", usage: { input: 1200, output: 40, cached: 800 } }],
  "say hello from claude": [{ text: "Hello from Claude.", usage: { input: 900, output: 30, cached: 0 } }],
  "write the greeting file": [
    { toolCalls: [{ name: "write_file", args: { path: "greeting.txt", content: "hello\n" } }] },
    { text: "I wrote greeting.txt with a friendly hello in it.", delayMs: 200 },
  ],
};

function scriptFor(): (request: RecordedRequest) => ScriptedTurn {
  const used = new Map<string, number>();
  return (request) => {
    const task = Object.keys(SCRIPTS).find((key) => request.rawBody.includes(key));
    if (!task) return { error: { status: 500, body: { error: "script: unknown task" } } };
    const index = used.get(task) ?? 0;
    used.set(task, index + 1);
    return (
      SCRIPTS[task]?.[index] ?? {
        error: { status: 500, body: { error: `script: no turn ${index} for ${task}` } },
      }
    );
  };
}

let model: ScriptedServer;
let home: string;
let repo: string;
let env: Record<string, string>;
let stopServer: () => Promise<void>;
let printedUrl: string;
let browser: BrowserContext;
/** Chromium's profile: a fresh one for each run. */
let userData: string;
let page: Page;
const problems: string[] = [];

/** Starts `cairn serve` as a person would and reads the URL it prints. */
async function serve(): Promise<void> {
  const child = spawnCairn(["serve", "--port", "0", "--cwd", repo], { home, env });
  let out = "";
  printedUrl = await new Promise<string>((resolve, reject) => {
    child.stdout.on("data", (chunk) => {
      out += chunk;
      const url = /cairn serve: (http:\/\/\S+\?token=\S+)/.exec(out)?.[1];
      if (url) resolve(url);
    });
    child.once("exit", (code) => reject(new Error(`cairn serve exited (${code}): ${out}`)));
  });
  stopServer = () =>
    new Promise<void>((resolve) => {
      child.once("exit", () => resolve());
      child.kill("SIGINT");
    });
}

beforeAll(async () => {
  await mkdir(SCREENSHOTS, { recursive: true });
  model = await startScriptedServer(scriptFor());
  [home, repo] = await Promise.all([makeHome(), makeRepo({ "README.md": "# demo\n" })]);
  const config = path.join(home, "config", "cairn", "config.yaml");
  await mkdir(path.dirname(config), { recursive: true });
  const existing = await readFile(config, "utf8").catch(() => "");
  await writeFile(
    config,
    `${existing}model: openai/gpt-4o\nproviders:\n  openai: { base_url: "${model.openaiBaseUrl}" }\n  anthropic: { base_url: "${model.anthropicBaseUrl}" }\n`,
  );
  env = { OPENAI_API_KEY: "sk-test", ANTHROPIC_API_KEY: "sk-ant-test" };
  // Two sessions run from the command line before the server starts: the dashboard reads the store.
  for (const [task, modelId] of [
    ["say hello from gpt", "openai/gpt-4o"],
    ["say hello from claude", "anthropic/claude-sonnet-4-5"],
  ] as const) {
    const run = await runCairn(["do", task, "--model", modelId, "--cwd", repo], { home, env });
    expect(run.code, run.stderr).toBe(0);
  }
  await serve();
  userData = tempDir("cairn-chromium-");
  browser = await chromium.launchPersistentContext(userData, {
    executablePath: "/usr/bin/chromium",
    headless: true,
    viewport: { width: 1280, height: 800 },
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  page = browser.pages()[0] ?? (await browser.newPage());
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(`console: ${message.text()}`);
  });
  page.on("pageerror", (error) => problems.push(`page: ${error.message}`));
}, scaled(90_000));

afterAll(async () => {
  await browser?.close();
  await stopServer?.();
  await model?.close();
  await Promise.all([home, userData].map((dir) => dir && rm(dir, { recursive: true, force: true })));
});

/** The colour the page draws `var(--warn)` in, as computed styles give it. */
function warningColour(): Promise<string> {
  return page.evaluate<string>(`(() => {
    const probe = document.createElement("span");
    probe.style.color = "var(--warn)";
    document.body.append(probe);
    const colour = getComputedStyle(probe).color;
    probe.remove();
    return colour;
  })()`);
}

/** The text colour of the first element `selector` finds. */
function colourOf(selector: string): Promise<string> {
  return page.evaluate<string>(`getComputedStyle(document.querySelector(${JSON.stringify(selector)})).color`);
}

describe("the dashboard in Chromium", () => {
  it("opens from the printed URL and lists the sessions just run", async () => {
    await page.goto(printedUrl);
    expect(new URL(page.url()).search).toBe("");
    const rows = page.locator("tr.session-row");
    await expect.poll(() => rows.count()).toBe(2);
    await expect
      .poll(() => page.locator("tr.session-row td.task").allTextContents())
      .toEqual(["say hello from claude", "say hello from gpt"]);
    expect(await rows.first().locator(".badge").textContent()).toBe("completed");
    await page.screenshot({ path: path.join(SCREENSHOTS, "dashboard-sessions.png") });

    await page.selectOption('select[name="status"]', "failed");
    await expect.poll(() => rows.count()).toBe(0);
    await page.selectOption('select[name="status"]', "");
    await expect.poll(() => rows.count()).toBe(2);
  });

  it("starts a session, streams it live, takes the approval from its button and shows it unverified, not failed", async () => {
    await page.locator("details.card summary").click();
    await page.fill("textarea[name=task]", "write the greeting file");
    await page.click("form.new-session button[type=submit]");
    await page.waitForURL(/#\/sessions\//);
    const allow = page.locator('.approval button[data-choice="once"]');
    await allow.waitFor();
    expect(await page.locator(".approval").textContent()).toContain("greeting.txt");
    // What the write would put in the file, before it is allowed.
    expect(await page.locator(".approval pre.diff .add").allTextContents()).toEqual(["+hello\n"]);
    await page.screenshot({ path: path.join(SCREENSHOTS, "dashboard-approval.png") });
    await allow.click();

    await page.locator(".item.finished").waitFor({ timeout: scaled(20_000) });
    expect(await page.locator(".item.finished .line").first().textContent()).toMatch(
      /^unverified · not checked \(no --verify, and the agent ran no project check after its change\) · 1 file changed · [\d.]+m?s · usage: /,
    );
    expect(await page.locator(".item.answer .markdown").last().innerHTML()).toBe(
      "<p>I wrote greeting.txt with a friendly hello in it.</p>\n",
    );
    // The call by its title, its arguments folded away.
    const call = page.locator(".item.tool.ok").first();
    expect(await call.locator(".label").textContent()).toBe("✎ write_file");
    expect(await call.textContent()).toContain("write_file greeting.txt");
    expect(await call.locator("details.arguments").getAttribute("open")).toBeNull();
    expect(await page.locator(".approval .outcome, .settled .outcome").first().textContent()).toBe(
      "Allow once",
    );
    await expect.poll(() => page.locator(".item.tool.ok > pre.diff").count()).toBe(1);
    // The write was made and nothing checked it: unverified, in the warning colour.
    await expect.poll(() => page.locator(".facts .badge").textContent()).toBe("unverified");
    const warn = await warningColour();
    expect(await colourOf(".facts .badge")).toBe(warn);
    expect(await colourOf(".item.finished")).toBe(warn);
    expect(await readFile(path.join(repo, "greeting.txt"), "utf8")).toBe("hello\n");
    await page.screenshot({ path: path.join(SCREENSHOTS, "dashboard-session.png"), fullPage: true });

    // In the list too: unverified, and not among the failed sessions.
    await page.goto(`${new URL(printedUrl).origin}/#/`);
    const rows = page.locator("tr.session-row");
    await expect.poll(() => rows.count()).toBe(3);
    expect(await rows.first().locator(".badge").textContent()).toBe("unverified");
    expect(await colourOf("tr.session-row .badge")).toBe(warn);
    await page.selectOption('select[name="status"]', "failed");
    await expect.poll(() => rows.count()).toBe(0);
    await page.selectOption('select[name="status"]', "unverified");
    await expect.poll(() => rows.count()).toBe(1);
    await page.selectOption('select[name="status"]', "");
    await expect.poll(() => rows.count()).toBe(3);
  });

  it("plots the costs: one series per model, per phase, per agent, and the token kinds with the cache share", async () => {
    await page.goto(`${new URL(printedUrl).origin}/#/costs`);
    await page.locator("canvas[data-plot=tokens]").waitFor();
    // Evaluated in the page, where Chart.js is loaded: the number of series the plot draws.
    const series = (name: string) =>
      page.evaluate<number>(
        `Chart.getChart(document.querySelector('canvas[data-plot="${name}"]')).data.datasets.length`,
      );
    expect(await series("by-model")).toBe(2);
    expect(await series("by-phase")).toBe(1);
    expect(await series("by-agent")).toBe(1);
    expect(await series("tokens")).toBe(4);
    await page.screenshot({ path: path.join(SCREENSHOTS, "dashboard-costs.png"), fullPage: true });
  });

  it("fits a phone-width window and follows a dark system setting", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.emulateMedia({ colorScheme: "dark" });
    await page.goto(`${new URL(printedUrl).origin}/#/`);
    await expect.poll(() => page.locator("tr.session-row").count()).toBe(3);
    expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(390);
    const background = await page.evaluate<string>("getComputedStyle(document.body).backgroundColor");
    expect(background).toBe("rgb(21, 23, 26)");
    await page.screenshot({ path: path.join(SCREENSHOTS, "dashboard-phone-sessions.png"), fullPage: true });
    await page.locator("tr.session-row td.task a").first().click();
    await page.locator(".item.finished").waitFor();
    expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(390);
    await page.screenshot({ path: path.join(SCREENSHOTS, "dashboard-phone-session.png"), fullPage: true });
    expect(problems).toEqual([]);
  });

  it("draws every event type of a recorded session: answers as Markdown, calls by title with their arguments folded", async () => {
    // The recording every front end is driven by (test/events/frontends.test.ts), as stored sessions are.
    const recorded = (await readFile(RECORDING, "utf8"))
      .trim()
      .split("\n")
      .map((line) => stampedEventSchema.parse(JSON.parse(line)));
    const store = Store.open(path.join(home, "data", "cairn", "cairn.db"));
    try {
      for (const event of recorded) store.appendEvent(event);
    } finally {
      store.close();
    }
    const id = recorded[0]?.session_id ?? "";
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.emulateMedia({ colorScheme: "light" });
    await page.goto(`${new URL(printedUrl).origin}/#/sessions/${id}`);
    await page.locator("h1", { hasText: "the sum test fails, fix it" }).waitFor();
    await page.locator('[data-events~="session.finished"]').waitFor();

    // Each event type left its mark where it is drawn.
    const types = [...new Set(recorded.map((event) => event.type))];
    const missing = await page.evaluate<string[]>(
      `${JSON.stringify(types)}.filter((type) => !document.querySelector('[data-events~="' + type + '"]'))`,
    );
    expect(missing).toEqual([]);

    // The report as HTML: headings and a table; HTML the model wrote is shown as text, never run.
    const report = page.locator(".item.answer .markdown").last();
    expect(await report.locator("h2").allTextContents()).toEqual(["What changed", "Checks"]);
    expect(await report.locator("table td").first().textContent()).toBe("npm test");
    expect(await report.locator("strong").first().textContent()).toBe("Status:");
    expect(await report.locator("script, img").count()).toBe(0);
    expect(await report.textContent()).toContain("<script>window.injected = true</script>");
    expect(await page.evaluate("window.injected")).toBeUndefined();
    // Calls by kind and title, their arguments folded; a sub-agent's under its id.
    const titles = await page.locator(".item.tool > .label").allTextContents();
    expect(titles).toEqual(["◎ read_file", "⌕ explore#1 · grep", "✎ edit_file", "$ run_command"]);
    expect(await page.locator("details.arguments[open]").count()).toBe(0);
    await page.screenshot({ path: path.join(SCREENSHOTS, "dashboard-recorded.png"), fullPage: true });
    expect(problems).toEqual([]);
  });
});
