/**
 * Dependencies point one way (docs/development.md, "Layers"): a folder may import its own layer
 * and the layers before it, never one after. `npm run lint` fails on an upward import or a cycle.
 */
const LAYERS = [
  ["platform"],
  ["events"],
  ["model", "replay"],
  ["config"],
  ["safety"],
  ["store"],
  ["verify"],
  ["tools", "web", "mcp"],
  ["context", "extensions", "hooks"],
  ["agents"],
  ["agent"],
  ["ui"],
  ["cli", "acp", "server", "batch", "eval"],
];

/** Exposing cairn as an MCP server drives the agent, so it sits with the front ends. */
const FRONT_END_FILES = ["src/mcp/serve"];

const folders = (names) => `^src/(${names.join("|")})/`;
const frontEnds = `^(${FRONT_END_FILES.join("|")})`;

const upward = LAYERS.slice(0, -1).map((layer, i) => ({
  name: `no-upward-from-${layer.join("-")}`,
  comment: `${layer.join(", ")} may not import ${LAYERS.slice(i + 1)
    .flat()
    .join(", ")}`,
  severity: "error",
  from: { path: folders(layer), pathNot: frontEnds },
  to: { path: folders(LAYERS.slice(i + 1).flat()) },
}));

/**
 * The one door (docs/development.md, "Sessions, turns and the one way in"): a front end drives
 * cairn through the conversation alone, so the session, the inbox, the run loop can change
 * without a front end noticing. Type imports count too.
 */
const throughTheConversation = {
  name: "front-ends-through-the-conversation",
  comment: "A front end imports nothing of src/agent but src/agent/conversation.ts.",
  severity: "error",
  from: { path: `^(src/(cli|ui|server|acp)/|${FRONT_END_FILES.join("|")}|web-ui/)` },
  to: { path: "^src/agent/", pathNot: "^src/agent/conversation\\.ts$" },
};

module.exports = {
  forbidden: [
    throughTheConversation,
    {
      name: "no-circular",
      comment: "An import cycle, type imports included.",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    ...upward,
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    // TypeScript 7 has no JavaScript API for dependency-cruiser to parse with; swc reads the sources.
    parser: "swc",
    tsConfig: { fileName: "tsconfig.json" },
    exclude: { path: "^(test|bench|dist)/" },
  },
};
