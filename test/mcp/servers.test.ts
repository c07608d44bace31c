// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} is the config's own syntax, read by cairn
import { describe, expect, it } from "vitest";
import { serverSpecs } from "../../src/mcp/servers.js";

const TOKEN = "Bearer ${TOKEN}";

describe("MCP server settings", () => {
  it("reads ${VAR} and ${VAR:-default} from the environment, and infers the transport", () => {
    const [local, remote] = serverSpecs(
      {
        remote: { url: "https://mcp.example.com/mcp", headers: { Authorization: TOKEN } },
        local: {
          command: "${BIN:-npx}",
          args: ["--root", "${ROOT}"],
          cwd: "tools",
          env: { LEVEL: "${LEVEL:-warn}" },
        },
      },
      "/work",
      { TOKEN: "t0ken", ROOT: "/data" },
    );
    expect(local).toMatchObject({
      name: "local",
      transport: "stdio",
      display: "${BIN:-npx} --root ${ROOT}",
      launch: {
        transport: "stdio",
        command: "npx",
        args: ["--root", "/data"],
        cwd: "/work/tools",
        env: { LEVEL: "warn" },
      },
    });
    expect(remote?.launch).toEqual({
      transport: "http",
      url: new URL("https://mcp.example.com/mcp"),
      headers: { Authorization: "Bearer t0ken" },
    });
  });

  it("says what is missing instead of starting: a variable, a command, a URL", () => {
    const specs = serverSpecs(
      {
        token: { url: "https://x.example/mcp", headers: { Authorization: TOKEN } },
        nothing: { enabled: true },
        typed: { type: "sse" },
      },
      "/work",
      {},
    );
    expect(specs.map((s) => [s.name, s.launch, s.problem])).toEqual([
      [
        "nothing",
        undefined,
        "mcp_servers.nothing has no command: set command (a local server) or url (a remote one).",
      ],
      [
        "token",
        undefined,
        "mcp_servers.token.headers.Authorization needs the environment variable TOKEN, which is not set.",
      ],
      ["typed", undefined, "mcp_servers.typed has type sse but no url."],
    ]);
  });

  it("trusts a whole server, or the tools tools.read names", () => {
    const [docs, github] = serverSpecs(
      {
        github: { url: "https://x.example", tools: { read: ["get_*", "list_issues"] } },
        docs: { command: "d", trust: "read" },
      },
      "/work",
      {},
    );
    expect(docs?.trusted("anything")).toBe(true);
    expect(["get_issue", "list_issues", "create_issue"].map((tool) => github?.trusted(tool))).toEqual([
      true,
      true,
      false,
    ]);
  });
});
