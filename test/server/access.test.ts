import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { missingPath } from "../helpers/temp.js";
import { startTestServer, type TestServer, TOKEN } from "./harness.js";

let harness: TestServer;
beforeAll(async () => {
  harness = await startTestServer([]);
});
afterAll(async () => {
  await harness.close();
});

/** A raw request, for headers fetch will not let a test set (Host). */
function rawGet(route: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  const url = new URL(route, harness.server.url);
  return new Promise((resolve, reject) => {
    const req = request(url, { headers }, (res) => {
      let body = "";
      res.on("data", (chunk) => {
        body += chunk;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

async function errorOf(response: Response): Promise<string> {
  return ((await response.json()) as { error: string }).error;
}

describe("cairn serve: access", () => {
  it("refuses a request without the token, or with a wrong one, saying which", async () => {
    const missing = await harness.call("GET", "/api/sessions", undefined, { authorization: "" });
    expect(missing.status).toBe(401);
    expect(await errorOf(missing)).toMatch(/missing token.*Authorization: Bearer/);

    const wrong = await harness.call("GET", "/api/sessions", undefined, { authorization: "Bearer nope" });
    expect(wrong.status).toBe(401);
    expect(await errorOf(wrong)).toBe("wrong token.");

    const page = await harness.call("GET", "/", undefined, { authorization: "" });
    expect(page.status).toBe(401);
    const openapi = await harness.call("GET", "/api/openapi.json", undefined, { authorization: "" });
    expect(openapi.status).toBe(401);
  });

  it("opening the printed URL sets a cookie and drops the token from the address; the cookie then works", async () => {
    const opened = await harness.call("GET", `/?token=${TOKEN}`, undefined, { authorization: "" });
    expect(opened.status).toBe(302);
    expect(opened.headers.get("location")).toBe("/");
    const cookie = opened.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(new RegExp(`^cairn_token_${harness.server.port}=`));
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);

    const page = await harness.call("GET", "/", undefined, {
      authorization: "",
      cookie: cookie.split(";")[0]!,
    });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<main id="app"');
    expect(page.headers.get("content-security-policy")).toContain("default-src 'self'");
    expect(page.headers.get("referrer-policy")).toBe("no-referrer");

    const wrong = await harness.call("GET", "/?token=guess", undefined, { authorization: "" });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("set-cookie")).toBeNull();
  });

  it("serves the dashboard's scripts, styles and charting library", async () => {
    for (const asset of ["/assets/main.js", "/assets/style.css", "/assets/chart.js"]) {
      const response = await harness.call("GET", asset);
      expect(response.status, asset).toBe(200);
      expect(response.headers.get("content-type"), asset).toMatch(/javascript|css/);
    }
    expect((await harness.call("GET", "/assets/../package.json")).status).toBe(404);
  });

  it("closes CORS: a request from another origin is refused, token or not, and nothing says allow", async () => {
    const response = await harness.call(
      "POST",
      "/api/sessions",
      { mode: "do", task: "x" },
      { origin: "http://evil.test" },
    );
    expect(response.status).toBe(403);
    expect(response.headers.get("access-control-allow-origin")).toBeNull();
    const preflight = await harness.call("OPTIONS", "/api/sessions", undefined, {
      origin: "http://evil.test",
      "access-control-request-method": "POST",
    });
    expect(preflight.headers.get("access-control-allow-origin")).toBeNull();
    const own = await harness.call("GET", "/api/info", undefined, {
      origin: new URL(harness.server.url).origin,
    });
    expect(own.status).toBe(200);
  });

  it("on loopback, refuses a Host that is not a loopback name (DNS rebinding)", async () => {
    const rebound = await rawGet("/api/info", { host: "attacker.test", authorization: `Bearer ${TOKEN}` });
    expect(rebound.status).toBe(403);
    const local = await rawGet("/api/info", {
      host: `localhost:${harness.server.port}`,
      authorization: `Bearer ${TOKEN}`,
    });
    expect(local.status).toBe(200);
  });

  it("says what it is: version, allowed workspaces, cost groupings", async () => {
    const { status, body } = await harness.json("GET", "/api/info");
    expect(status).toBe(200);
    expect(body).toMatchObject({
      version: expect.any(String),
      workspaces: [harness.workspace, harness.other],
      cost_groups: expect.arrayContaining(["day", "model", "phase", "workspace"]),
      modes: ["do", "run", "chat"],
      statuses: expect.arrayContaining(["running", "interrupted", "completed", "cancelled"]),
      approval_modes: ["ask", "auto-edit", "auto", "read-only"],
    });
  });

  it("describes every endpoint in an OpenAPI document generated from the schemas", async () => {
    const { status, body } = await harness.json<{ openapi: string; paths: Record<string, object> }>(
      "GET",
      "/api/openapi.json",
    );
    expect(status).toBe(200);
    expect(body.openapi).toBe("3.1.0");
    expect(Object.keys(body.paths).sort()).toEqual([
      "/api/checkpoints",
      "/api/checkpoints/undo",
      "/api/costs",
      "/api/info",
      "/api/sessions",
      "/api/sessions/{id}",
      "/api/sessions/{id}/approvals/{request_id}",
      "/api/sessions/{id}/cancel",
      "/api/sessions/{id}/events",
      "/api/sessions/{id}/messages",
      "/api/sessions/{id}/questions/{request_id}",
      "/api/sessions/{id}/resume",
    ]);
    const start = JSON.stringify(body.paths["/api/sessions"]);
    expect(start).toContain("StartSession");
    expect(JSON.stringify(body)).toContain('"enum":["ask","auto-edit","auto","read-only"]');
  });

  it("types the events and the result by the protocol's own schemas, each event type its own shape", async () => {
    type Schema = {
      oneOf?: Array<{ $ref?: string }>;
      properties?: Record<string, unknown>;
      required?: string[];
    };
    const { body } = await harness.json<{ components: { schemas: Record<string, Schema> } }>(
      "GET",
      "/api/openapi.json",
    );
    const { schemas } = body.components;
    const events = (schemas.Event?.oneOf ?? []).map((member) => member.$ref);
    expect(events).toEqual(
      expect.arrayContaining([
        "#/components/schemas/ToolCallEvent",
        "#/components/schemas/SessionFinishedEvent",
      ]),
    );
    expect(schemas.ToolCallEvent?.required).toEqual(expect.arrayContaining(["kind", "title", "call_id"]));
    expect(JSON.stringify(schemas.SessionFinishedEvent?.properties)).toContain(
      "#/components/schemas/RunResult",
    );
    expect(schemas.RunResult?.required).toEqual(expect.arrayContaining(["status", "files_changed", "usage"]));
    const detail = schemas.SessionDetail?.properties?.result as Schema;
    expect(detail.properties?.status).toMatchObject({
      enum: expect.arrayContaining(["completed", "cancelled"]),
    });
  });
});

describe("cairn serve: bad input", () => {
  it("names each bad field in the words of the config errors, never a stack trace", async () => {
    const { status, body } = await harness.json<{ error: string; issues: Array<{ field: string }> }>(
      "POST",
      "/api/sessions",
      { mode: "dance", task: "", approval: "sometimes", max_cost_usd: -1, extra: 1 },
    );
    expect(status).toBe(400);
    expect(body.issues.map((issue) => issue.field)).toEqual([
      "mode",
      "task",
      "approval",
      "max_cost_usd",
      "extra",
    ]);
    expect(body.error).toContain('mode: expected one of do, run, chat (got "dance")');
    expect(body.error).toContain('task: expected non-empty text (got "")');
    expect(body.error).toContain(
      'approval: expected one of ask, auto-edit, auto, read-only (got "sometimes")',
    );
    expect(body.error).toContain("max_cost_usd: expected a number greater than 0 (got -1)");
    expect(body.error).toContain("extra: not a field of this request");
    expect(body.error).not.toMatch(/\bat .*\.(js|ts):\d+/);
  });

  it("a missing field, a bad query, bad JSON, no JSON and an unknown endpoint each say so", async () => {
    const missing = await harness.json("POST", "/api/sessions", { task: "x" });
    expect(missing).toMatchObject({
      status: 400,
      body: { error: "mode: expected one of do, run, chat (got nothing)" },
    });
    const model = await harness.json("POST", "/api/sessions", { mode: "do", task: "x", model: "gpt" });
    expect(model.status).toBe(400);
    expect(model.body.error).toMatch(/^model: .*provider\/model/);

    const query = await harness.json("GET", "/api/costs?by=week&since=yesterday");
    expect(query.status).toBe(400);
    expect(query.body.error).toContain("query parameter by: expected one of day, model, phase");
    expect(query.body.error).toContain("query parameter since: expected a span (12h, 7d, 2w)");

    const broken = await harness.call("POST", "/api/sessions", undefined, {
      "content-type": "application/json",
    });
    expect(broken.status).toBe(400);
    const notJson = await fetch(new URL("/api/sessions", harness.server.url), {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}` },
      body: "mode=do",
    });
    expect(notJson.status).toBe(415);
    expect(await errorOf(notJson)).toMatch(/Content-Type: application\/json/);

    const unknown = await harness.json("GET", "/api/nothing");
    expect(unknown).toMatchObject({ status: 404, body: { error: "no such endpoint: GET /api/nothing" } });
    const noSession = await harness.json("GET", "/api/sessions/nope");
    expect(noSession).toMatchObject({ status: 404, body: { error: 'no session matches "nope".' } });
  });

  it("starts sessions only in an allowed workspace", async () => {
    const outside = await harness.json("POST", "/api/sessions", {
      mode: "do",
      task: "x",
      workspace: harness.outside,
    });
    expect(outside.status).toBe(403);
    expect(outside.body.error).toMatch(/not one this server was started for.*server\.workspaces/);
    const absent = missingPath("folder");
    const missing = await harness.json("POST", "/api/sessions", { mode: "do", task: "x", workspace: absent });
    expect(missing).toMatchObject({
      status: 400,
      body: { error: `workspace: ${absent} does not exist on the server.` },
    });
    const above = await harness.json(
      "GET",
      `/api/checkpoints?workspace=${encodeURIComponent(`${harness.workspace}/..`)}`,
    );
    expect(above.status).toBe(403);
  });
});
