// A cairn process of its own for the concurrency test: Node runs this TypeScript source as is.
// Once told "go" on stdin it opens the store and writes one session's events as fast as it can;
// halfway it says "half" and waits to be told "on", so that a test can be sure two writers overlap.
// Usage: node writer.ts <db file> <session id> <model calls>
import { registerHooks } from "node:module";
import { createInterface } from "node:readline";

// The sources import each other as `.js`, as compiled output does; here only the `.ts` exists.
registerHooks({
  resolve(specifier, context, next) {
    try {
      return next(specifier, context);
    } catch (error) {
      if (!specifier.startsWith(".") || !specifier.endsWith(".js")) throw error;
      return next(`${specifier.slice(0, -3)}.ts`, context);
    }
  },
});

const [file, sessionId, calls] = process.argv.slice(2);
if (!file || !sessionId || !calls) throw new Error("usage: writer.ts <db file> <session id> <model calls>");
const { Store } = await import("../../src/store/sessions.js");

const told = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
async function waitFor(word: string): Promise<void> {
  for (;;) {
    const { value, done } = await told.next();
    if (done) throw new Error(`stdin ended before "${word}"`);
    if (value === word) return;
  }
}

process.stdout.write("ready\n");
await waitFor("go");

const store = Store.open(file);
let seq = 0;
const stamp = () => ({ session_id: sessionId, seq: ++seq, ts: new Date().toISOString() });
store.appendEvent({
  ...stamp(),
  type: "session.started",
  mode: "do",
  task: `write from ${sessionId}`,
  model: "test/model",
  workspace: `/work/${sessionId}`,
});
for (let i = 0; i < Number(calls); i++) {
  if (i === Math.floor(Number(calls) / 2)) {
    process.stdout.write("half\n");
    await waitFor("on");
  }
  store.appendEvent({ ...stamp(), type: "message.delta", text: `chunk ${i}` });
  store.appendEvent({
    ...stamp(),
    type: "usage",
    phase: "execution",
    model: "test/model",
    input_tokens: 100 + i,
    output_tokens: 10,
    cached_input_tokens: 1,
    cache_write_tokens: 0,
    reasoning_tokens: 0,
    cost_usd: 0.001,
    duration_ms: 5,
    tokens_per_second: null,
  });
}
store.close();
process.stdout.write("done\n");
