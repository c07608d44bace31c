/**
 * Loads the terminal UI. The environment is set only while the modules load, because that is
 * when they read it, and the commands the agent runs inherit the environment afterwards:
 * - React and its reconciler pick their build by NODE_ENV; the development build is several
 *   times slower, and NODE_ENV=production would change what `npm install` does in a command;
 * - the colour libraries (Ink's, the Markdown highlighter's) read FORCE_COLOR once.
 */
export async function loadTui(options: { color: boolean }): Promise<typeof import("./start.js")> {
  const saved = { NODE_ENV: process.env.NODE_ENV, FORCE_COLOR: process.env.FORCE_COLOR };
  process.env.NODE_ENV = "production";
  if (!options.color) process.env.FORCE_COLOR = "0";
  try {
    const start = await import("./start.js");
    await start.loadMarkdown();
    return start;
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}
