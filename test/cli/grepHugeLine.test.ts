import { readFile, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { findExecutable } from "../../src/platform/processes.js";
import { makeHome, makeRepo, modelFlags, runCairn, streamEvents } from "../helpers/cli.js";
import { tempDir } from "../helpers/temp.js";
import { scaled } from "../helpers/timeScale.js";
import { type ScriptedServer, startScriptedServer } from "../support/scriptedServer.js";

const PEAK_RSS_PROBE = fileURLToPath(new URL("../helpers/peakRss.mjs", import.meta.url));
/** A minified bundle on one line: ripgrep's JSON for it would run to some 860 MB. */
const BUNDLE_BYTES = 56_000_000;
/**
 * Peak resident memory allowed to the whole cairn process, about 100 MB of it cairn's own. The
 * search used to read all of ripgrep's output for the line and passed a gigabyte without
 * returning. The ripgrep engine now never holds the line; the JS search holds it once (as bytes
 * and as text) to match it, and nothing more.
 */
const PEAK_RSS_LIMIT_MB = { ripgrep: 250, js: 450 };

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A folder whose PATH holds git and nothing else, so the grep tool has no ripgrep to use. */
async function pathWithoutRipgrep(): Promise<string> {
  const bin = tempDir("cairn-bin-");
  await symlink(findExecutable("git")!, path.join(bin, "git"));
  return bin;
}

describe.each([
  ["ripgrep", undefined],
  ["js", pathWithoutRipgrep],
] as const)("grep over a one-line file of 56 MB (%s engine)", (engine, makePath) => {
  it.skipIf(engine === "ripgrep" && !findExecutable("rg"))(
    "returns the hit cut around the match, beside the normal ones, in bounded memory",
    async () => {
      const repo = await makeRepo({
        "src/app.js": "const marker = 'xxxx';\n",
        "README.md": "# xxxx\n",
      });
      const filler = "abcdefghijklmnopqrstuvwxyz0123456789;function(){return xxxx}";
      await writeFile(path.join(repo, "bundle.min.js"), Buffer.alloc(BUNDLE_BYTES, filler));
      server = await startScriptedServer([
        { toolCalls: [{ name: "grep", args: { pattern: "xxxx" } }] },
        { text: "Found it." },
      ]);
      const { args, env } = modelFlags("openai", server);
      const home = await makeHome();
      const rssFile = path.join(home, "peak-rss");
      const run = await runCairn(
        ["do", "find xxxx", ...args, "--cwd", repo, "--output-format", "stream-json"],
        {
          home,
          env: {
            ...env,
            ...(makePath ? { PATH: await makePath() } : {}),
            NODE_OPTIONS: `--import=${PEAK_RSS_PROBE}`,
            CAIRN_TEST_PEAK_RSS_FILE: rssFile,
          },
          timeoutMs: 60_000,
        },
      );
      expect(run.code, run.stderr).toBe(0);
      const result = streamEvents(run.stdout).find((event) => event.type === "tool.result");
      expect(result).toMatchObject({ tool: "grep", ok: true, data: { engine, capped: false } });
      const lines = String(result?.output).split("\n");
      expect(lines).toContain("README.md:1:# xxxx");
      expect(lines).toContain("src/app.js:1:const marker = 'xxxx';");
      const bundle = lines.find((line) => line.startsWith("bundle.min.js:1:"));
      // The line from its start (under 100 characters before the first match), 200 characters from
      // the match on, and a mark where it is cut.
      const match = filler.indexOf("xxxx");
      expect(bundle).toBe(`bundle.min.js:1:${filler.repeat(5).slice(0, match + 200)}…`);
      const peakMb = Number(await readFile(rssFile, "utf8")) / 1024;
      expect(peakMb).toBeLessThan(PEAK_RSS_LIMIT_MB[engine]);
    },
    scaled(90_000),
  );
});
