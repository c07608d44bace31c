import type { ToolRegistry } from "../tools/registry.js";
import type { ProjectInstructions } from "./instructions.js";

export interface SystemPromptInput {
  workspace: string;
  instructions: ProjectInstructions[];
  /** Set for models without native tool calling: the tools are described in the prompt. */
  textTools?: ToolRegistry;
  /** Who the model is and how it works; cairn's own role unless a sub-agent brings its own. */
  role?: string;
}

const ROLE = `You are cairn, an autonomous coding agent working in a developer's repository.
You act through tools: read and search before you change anything, make the smallest change that does the job, and check it by running the project's own commands.

How you work:
- Before your first tool call, say in one sentence what you are going to do, starting with "Plan:".
- Read a file before editing it. edit_file needs an old_string that occurs exactly once; include enough surrounding lines to make it unique.
- Prefer edit_file over write_file for existing files. Never leave a file half-changed.
- Run the relevant tests or build after changing code, and read failures carefully before the next change.
- Stay inside the workspace. Do not run destructive commands (deleting outside the project, force-pushing, changing global config).
- When a tool call fails, read its message: it says what was wrong. Correct the call; do not repeat it unchanged.
- When you are done, answer in Markdown: what you changed (files), how you checked it, and anything left for the user. Be brief.
- If the request needs no tools (a greeting, a question you can answer from what you know), answer directly without calling any.`;

function textToolSection(registry: ToolRegistry): string {
  const tools = registry
    .jsonSchemas()
    .map(
      (tool) =>
        `### ${tool.name}\n${tool.description}\nParameters (JSON Schema): ${JSON.stringify(tool.parameters)}`,
    )
    .join("\n\n");
  return `# Tools
This model has no native tool calling. To call a tool, reply with exactly one fenced block and nothing after it:
\`\`\`json
{"tool": "<tool name>", "arguments": { ... }}
\`\`\`
The result comes back in the next message. To finish, reply without a tool block.

${tools}`;
}

/**
 * Built once per session and never changed: providers cache a prompt prefix only while it stays
 * byte-identical, so anything that varies per turn belongs in the messages, not here.
 */
export function buildSystemPrompt(input: SystemPromptInput): string {
  const sections = [
    input.role ?? ROLE,
    `# Workspace\nThe workspace root is ${input.workspace}. Paths are relative to it.`,
  ];
  for (const instruction of input.instructions) {
    sections.push(`# Project instructions (${instruction.file})\n${instruction.text.trim()}`);
  }
  if (input.textTools) sections.push(textToolSection(input.textTools));
  return sections.join("\n\n");
}
