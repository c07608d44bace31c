// The tests' model server: the replay server (src/replay) with a script per test. Run as a
// process (`node dist/test/support/scriptedServer.js script.json [requests.jsonl [headers.jsonl]]
// [--while-stdin-open]`) it serves that script and prints `{"url": ...}` once listening, for
// end-to-end tests that drive the CLI from elsewhere (a terminal, Emacs); given a second file, it
// appends each request's body to it as a JSON line as the request arrives, for those tests to see
// what the model was sent, and given a third, each request's headers (the key it came with). With
// --while-stdin-open it exits when its standard input closes: when the test that started it is
// gone, however it ended.
import { appendFileSync, readFileSync } from "node:fs";
import { resolve as resolvePath } from "node:path";
import { pathToFileURL } from "node:url";
import { startScriptedServer } from "../../src/replay/server.js";
import type { ScriptedTurn } from "../../src/replay/turns.js";

export type { ServedModel, ServedModels } from "../../src/replay/modelInfo.js";
export type {
  RecordedRequest,
  Script,
  ScriptedServer,
  ScriptedToolCall,
  ScriptedTurn,
  WireFormat,
} from "../../src/replay/turns.js";
export { startScriptedServer };

if (process.argv[1] && import.meta.url === pathToFileURL(resolvePath(process.argv[1])).href) {
  const [scriptFile = "", log, headersLog] = process.argv.slice(2).filter((arg) => !arg.startsWith("--"));
  const script = JSON.parse(readFileSync(scriptFile, "utf8")) as ScriptedTurn[];
  if (process.argv.includes("--while-stdin-open")) process.stdin.on("end", () => process.exit(0)).resume();
  const server = await startScriptedServer(script, {
    onRequest: (request) => {
      if (log) appendFileSync(log, `${JSON.stringify(request.body)}\n`);
      if (headersLog) appendFileSync(headersLog, `${JSON.stringify(request.headers)}\n`);
    },
  });
  process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);
}
