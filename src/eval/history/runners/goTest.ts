import path from "node:path";
import { shellQuote } from "../../runners.js";
import { byFile, escapeRegExp, idName, type Outcomes, type RunnerSpec } from "./runner.js";

interface TestEvent {
  Action?: string;
  Package?: string;
  Test?: string;
}

/**
 * `go test`: tests by package and name (`example.com/calc/sub::TestAdd`; subtests count toward
 * their test). A run of the packages a commit's `_test.go` files are in, read from `-json`; a
 * package that does not build has no test events, so its tests are absent.
 */
export const goTest: RunnerSpec = {
  runnable: (files) => [
    ...new Set(
      files
        .filter((file) => file.endsWith("_test.go"))
        .map((file) => {
          const dir = path.posix.dirname(file);
          return dir === "." ? "." : `./${dir}`;
        }),
    ),
  ],
  invocations: (base, targets) => [
    { command: [base, "-json", "-count=1", ...targets.map(shellQuote)].join(" ") },
  ],
  read({ output }) {
    const outcomes: Outcomes = new Map();
    for (const line of output.split("\n")) {
      if (!line.startsWith("{")) continue;
      let event: TestEvent;
      try {
        event = JSON.parse(line) as TestEvent;
      } catch {
        continue;
      }
      if (!event.Test || event.Test.includes("/") || !event.Package) continue;
      if (event.Action === "pass" || event.Action === "fail")
        outcomes.set(`${event.Package}::${event.Test}`, event.Action === "pass");
    }
    return outcomes;
  },
  commands: (base, ids) =>
    [...byFile(ids)].map(([pkg, group]) => {
      const names = group.map((id) => escapeRegExp(idName(id)));
      return `${base} -count=1 ${shellQuote(pkg)} -run ${shellQuote(`^(${names.join("|")})$`)}`;
    }),
};
