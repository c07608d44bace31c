// The floor of the per-turn overhead benchmark: the request bodies cairn sent, posted one after
// the other with nothing but fetch, each streamed answer read to its end and its events parsed.
import { readFileSync } from "node:fs";

const [url, file] = process.argv.slice(2);
const bodies = JSON.parse(readFileSync(file, "utf8"));
for (const body of bodies) {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer sk-bench" },
    body,
  });
  for (const line of (await response.text()).split("\n")) {
    if (line.startsWith("data: {")) JSON.parse(line.slice(6));
  }
}
