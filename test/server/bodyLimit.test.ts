import { readFile, rm } from "node:fs/promises";
import { request } from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { makeHome, makeRepo, spawnCairn } from "../helpers/cli.js";
import { scaled } from "../helpers/timeScale.js";
import { startTestServer, type TestServer } from "./harness.js";

const PEAK_RSS_PROBE = fileURLToPath(new URL("../helpers/peakRss.mjs", import.meta.url));
const TOKEN = "body-limit-token-0123456789abcdef";
const HUGE = 200 * 1024 * 1024;
/**
 * Peak resident memory allowed to the whole server process while it refuses 200 MB bodies: it
 * starts at about 100 MB. Reading such a body whole took it past 4.5 GB.
 */
const PEAK_RSS_LIMIT_MB = 250;

const made: string[] = [];
let harness: TestServer | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

interface Refusal {
  status: number;
  body: Record<string, unknown>;
  /** Bytes of the body sent before the answer came. */
  sent: number;
}

/**
 * POSTs a body of `bytes` (zeros in 64 KiB chunks, as fast as the server takes them), chunked
 * or with its Content-Length announced, and stops sending at the first byte of the answer.
 */
function postHuge(url: string, bytes: number, framing: "chunked" | "length"): Promise<Refusal> {
  return new Promise((resolve, reject) => {
    const chunk = Buffer.alloc(64 * 1024, "a");
    const req = request(new URL("/api/sessions", url), {
      method: "POST",
      headers: {
        authorization: `Bearer ${TOKEN}`,
        "content-type": "application/json",
        ...(framing === "length" ? { "content-length": String(bytes) } : {}),
      },
    });
    let sent = 0;
    let answered = false;
    req.on("response", (res) => {
      answered = true;
      let text = "";
      res.on("data", (data) => {
        text += data;
      });
      res.on("end", () => {
        req.destroy();
        resolve({ status: res.statusCode ?? 0, body: JSON.parse(text), sent });
      });
    });
    // The server may close the connection on the rest of a refused body: the answer came first.
    req.on("error", (error) => {
      if (!answered) reject(error);
    });
    const pump = () => {
      while (!answered && sent < bytes) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once("drain", pump);
      }
      if (!answered) req.end();
    };
    pump();
  });
}

describe("cairn serve and request bodies", () => {
  it(
    "refuses 200 MB bodies with 413 and a JSON problem, without holding them",
    async () => {
      const [home, repo] = await Promise.all([makeHome(), makeRepo({ "a.txt": "a\n" })]);
      made.push(home, repo);
      const rssFile = path.join(home, "peak-rss");
      const child = spawnCairn(["serve", "--port", "0", "--cwd", repo], {
        home,
        env: {
          CAIRN_SERVER_TOKEN: TOKEN,
          NODE_OPTIONS: `--import=${PEAK_RSS_PROBE}`,
          CAIRN_TEST_PEAK_RSS_FILE: rssFile,
        },
      });
      const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
      try {
        let out = "";
        const url = await new Promise<string>((resolve, reject) => {
          child.stdout.on("data", (chunk) => {
            out += chunk;
            const found = /cairn serve: (http:\/\/\S+)/.exec(out)?.[1];
            if (found) resolve(found);
          });
          child.once("exit", (code) => reject(new Error(`cairn serve exited (${code}): ${out}`)));
        });
        for (const framing of ["length", "chunked"] as const) {
          const refusal = await postHuge(url, HUGE, framing);
          expect(refusal.status, framing).toBe(413);
          expect(refusal.body).toMatchObject({ limit_bytes: 4 * 1024 * 1024 });
          expect(String(refusal.body.error)).toMatch(/over 4\.0 MB.*server\.max_body_bytes/);
          // Refused long before the end, not after reading it all.
          expect(refusal.sent, framing).toBeLessThan(HUGE / 2);
        }
        // Still serving.
        const info = await fetch(new URL("/api/info", url), {
          headers: { authorization: `Bearer ${TOKEN}` },
        });
        expect(info.status).toBe(200);
      } finally {
        child.kill("SIGINT");
        await exited;
      }
      const peakMb = Number(await readFile(rssFile, "utf8")) / 1024;
      expect(peakMb).toBeLessThan(PEAK_RSS_LIMIT_MB);
    },
    scaled(120_000),
  );

  it("takes the limit from server.max_body_bytes, and reads a body within it as before", async () => {
    harness = await startTestServer([{ text: "Done." }], {}, { max_body_bytes: 2000 });
    const big = await harness.call("POST", "/api/sessions", { mode: "do", task: "x".repeat(3000) });
    expect(big.status).toBe(413);
    expect(await big.json()).toMatchObject({ limit_bytes: 2000 });
    const small = await harness.call("POST", "/api/sessions", { mode: "do", task: "say hello" });
    expect(small.status).toBe(201);
  });
});
