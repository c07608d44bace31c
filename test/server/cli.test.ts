import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { makeHome, makeRepo, runCairn, spawnCairn } from "../helpers/cli.js";

const TOKEN = "a-token-chosen-in-advance-0123";

describe("cairn serve on the command line", () => {
  it("refuses to listen beyond loopback without a token chosen in advance", async () => {
    const home = await makeHome();
    const run = await runCairn(["serve", "--host", "0.0.0.0", "--port", "0"], { home });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--host 0\.0\.0\.0 would open cairn to the network.*CAIRN_SERVER_TOKEN/);
    expect(run.stdout).toBe("");

    const short = await runCairn(["serve", "--token", "short", "--port", "0"], { home });
    expect(short.code).toBe(2);
    expect(short.stderr).toMatch(/at least 16 characters/);
    const badPort = await runCairn(["serve", "--port", "eighty"], { home });
    expect(badPort.code).toBe(2);
    expect(badPort.stderr).toMatch(/expected a port number/);
  });

  it("says so when the port is taken", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      const run = await runCairn(["serve", "--port", String(port)], { home: await makeHome() });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`127.0.0.1:${port} is in use; pick another with --port`);
    } finally {
      taken.close();
    }
  });

  it("listens on every interface with the token given in the environment, keeps it off the terminal, and stops on Ctrl-C", async () => {
    const [home, repo] = await Promise.all([makeHome(), makeRepo({})]);
    const child = spawnCairn(["serve", "--host", "0.0.0.0", "--port", "0", "--cwd", repo], {
      home,
      env: { CAIRN_SERVER_TOKEN: TOKEN },
    });
    let out = "";
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on("data", (chunk) => {
        out += chunk;
        const found = /cairn serve: (http:\/\/\S+)/.exec(out)?.[1];
        if (found && out.includes("Ctrl-C")) resolve(found);
      });
      child.once("exit", (code) => reject(new Error(`exited ${code}: ${out}`)));
    });
    expect(out).not.toContain(TOKEN);
    expect(out).toMatch(/listening on 0\.0\.0\.0, port \d+/);
    expect(out).toContain(`workspaces: ${repo}`);
    const info = await fetch(new URL("/api/info", url), { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(info.status).toBe(200);
    const refused = await fetch(new URL("/api/info", url));
    expect(refused.status).toBe(401);

    const code = await new Promise<number | null>((resolve) => {
      child.once("exit", resolve);
      child.kill("SIGINT");
    });
    expect(code).toBe(0);
  });
});
