// The test run of a compiled language's exercise (Go, Rust, Java, C++), in the exercise's
// folder: `node exerciseTests.js <language>`, exit 0 when every test passed. The grading check
// and the agent's own check are this same command.
import { register } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

// Run from the sources (cairn's own tests), the modules below import each other as `.js` files
// that are `.ts` here; the exercises' resolution hook finds them. Built, they are bundled in.
if (path.extname(fileURLToPath(import.meta.url)) === ".ts") register("./extensionless.ts", import.meta.url);
const { COMPILED } = await import("./languages/index.js");

const [name] = process.argv.slice(2);
const language = COMPILED[name as keyof typeof COMPILED];
if (!language) {
  process.stderr.write(
    `usage: exerciseTests <${Object.keys(COMPILED).join("|")}>, in the exercise's folder\n`,
  );
  process.exit(2);
}
const missing = await language.missing();
if (missing) {
  process.stderr.write(`${missing}\n`);
  process.exit(2);
}
process.exitCode = await language.test(process.cwd());
