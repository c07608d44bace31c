import { afterEach, describe, expect, it } from "vitest";
import { doTask } from "../../src/agent/doTask.js";
import {
  closeAll,
  closeLater,
  hostedSession,
  lastToolResult,
  offeredTools,
  onDemandTools,
} from "../helpers/session.js";
import { ARTICLE, html, startSite } from "./site.js";

afterEach(closeAll);

const fetchCall = (url: string) => ({ toolCalls: [{ name: "fetch_webpage", args: { url } }] });

describe("the web tools in a session", () => {
  it("run in auto mode as network tools, the page back to the model; headless auto-edit refuses them", async () => {
    const site = await startSite({ "/notes": html(ARTICLE) });
    closeLater(site.close);
    const web = { allow_private: ["127.0.0.1"] };
    const auto = await hostedSession([fetchCall(`${site.base}/notes`), { text: "Version 2 is out." }], {
      approval: "auto",
      config: { web },
    });
    await doTask(auto.session, "what is new in widget?");
    // Offered from the first request: on their own they cost what tool_search and call_tool would.
    expect(offeredTools(auto.server.requests[0]?.body)).toEqual(
      expect.arrayContaining(["fetch_webpage", "web_search"]),
    );
    expect(auto.events).toContainEqual(
      expect.objectContaining({ type: "tool.call", tool: "fetch_webpage", permission: "network" }),
    );
    expect(lastToolResult(auto.server.requests[1]?.body)).toContain(
      "Version 2 of the **widget** library is out.",
    );

    const headless = await hostedSession([fetchCall(`${site.base}/notes`), { text: "Could not." }], {
      approval: "auto-edit",
      config: { web },
    });
    await doTask(headless.session, "what is new in widget?");
    expect(lastToolResult(headless.server.requests[1]?.body)).toContain(
      "Refused: fetch_webpage " +
        `${site.base}/notes needs approval, and nobody can answer in this headless run`,
    );
    expect(site.requests).toHaveLength(1);
  });

  it("are not offered with web.enabled: false", async () => {
    const { session, server } = await hostedSession([{ text: "No web." }], {
      config: { web: { enabled: false } },
    });
    await doTask(session, "search the web");
    const offered = offeredTools(server.requests[0]?.body);
    expect(offered).toContain("read_file");
    expect(offered).not.toContain("fetch_webpage");
    expect(offered).not.toContain("web_search");
    expect(onDemandTools(server.requests[0]?.body)).not.toContain("fetch_webpage");
    expect(offered).toEqual(expect.arrayContaining(["explore_codebase", "task"]));
  });
});
