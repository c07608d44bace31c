// Preloaded into a child process (NODE_OPTIONS=--import) to write the process's peak resident set
// size, in kilobytes, to the file named by CAIRN_TEST_PEAK_RSS_FILE when it exits. The first
// process to exit writes it: cairn itself, not the launcher that restarts it on a newer Node.
import { writeFileSync } from "node:fs";

const file = process.env.CAIRN_TEST_PEAK_RSS_FILE;
if (file) {
  process.on("exit", () => {
    try {
      writeFileSync(file, String(process.resourceUsage().maxRSS), { flag: "wx" });
    } catch {
      // Written already, by the process that ran cairn.
    }
  });
}
