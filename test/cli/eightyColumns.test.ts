// Issue 40's tour of every command at an 80×24 terminal: what these commands print to one is
// broken between words within its width, where the terminal cut words in half before.
import path from "node:path";
import { describe, expect, it } from "vitest";
import { serverTable } from "../../src/cli/mcp.js";
import { skillsCommand } from "../../src/cli/skills.js";
import type { ServerState } from "../../src/mcp/hub.js";
import type { McpServerSpec } from "../../src/mcp/servers.js";
import { makeHome, makeRepo } from "../helpers/cli.js";
import { captureIo } from "../store/fixtures.js";

const tooWide = (text: string) => text.split("\n").filter((line) => line.length > 80);

describe("at 80 columns", () => {
  it("cairn skills with none says where a skill goes, broken between words", async () => {
    const [repo, home] = await Promise.all([makeRepo({ "a.txt": "a\n" }), makeHome()]);
    const { io, out } = captureIo();
    const env = { HOME: home, XDG_CONFIG_HOME: path.join(home, "config") };
    expect(await skillsCommand({ cwd: repo }, { ...io, columns: 80 }, env)).toBe(0);
    expect(tooWide(out())).toEqual([]);
    expect(out()).toMatch(
      /^No skills\. A skill is a folder with a SKILL\.md \(a name and a description in\n {2}its/,
    );
    // Piped, one line as ever: a program reads it whole.
    const piped = captureIo();
    await skillsCommand({ cwd: repo }, piped.io, env);
    expect(piped.out().trimEnd().split("\n")).toHaveLength(1);
  });

  it("cairn mcp list fits its table and breaks why a server failed between words", () => {
    const spec = {
      name: "everything-long-name",
      transport: "stdio",
      display: "npx -y @modelcontextprotocol/server-everything --some-long-argument-here",
    } as McpServerSpec;
    const failed: ServerState = {
      spec,
      status: "failed",
      tools: new Map(),
      message:
        "it failed to start: the server exited (stderr: Unknown transport: --some-long-argument-here, try stdio)",
    };
    const table = serverTable([failed], 80);
    expect(tooWide(table)).toEqual([]);
    expect(table.split("\n")[1]).toMatch(
      /^everything-long-name {2}stdio {2}failed {6}- {2}npx -y @model.*…$/,
    );
    expect(table).toContain("exited (stderr: Unknown\n  transport: --some-long-argument-here, try stdio)");
    expect(serverTable([], 80)).toBe(
      "No MCP servers are configured. Add one with cairn mcp add, or in .mcp.json or\n  config.yaml.",
    );
  });
});
