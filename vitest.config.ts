import { defineConfig } from "vitest/config";

export default defineConfig({
  // The terminal UI loads React's production build (as `cairn` does); the production JSX
  // runtime must match it, or code under test that renders the UI finds no jsxDEV.
  oxc: { jsx: { runtime: "automatic", development: false } },
  test: {
    include: ["test/**/*.test.ts", "test/**/*.test.tsx"],
    // Every run and every test file in a temp folder of its own, checked empty at the end.
    globalSetup: ["test/setup/global.ts"],
    setupFiles: ["test/setup/files.ts"],
    // The timeouts are set per test file as it starts, stretched by the load: test/setup/files.ts
    // and fileTimeouts in test/helpers/timeScale.ts.
    pool: "forks",
    // Tests spawn real processes (git, the CLI, ripgrep); two workers fit the 2-core CI machine.
    maxWorkers: 2,
  },
});
