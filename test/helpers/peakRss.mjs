// Preloaded into a child process (NODE_OPTIONS=--import) to write the process's peak resident set
// size, in kilobytes, to the file named by CAIRN_TEST_PEAK_RSS_FILE when it exits.
import { writeFileSync } from "node:fs";

const file = process.env.CAIRN_TEST_PEAK_RSS_FILE;
if (file) process.on("exit", () => writeFileSync(file, String(process.resourceUsage().maxRSS)));
