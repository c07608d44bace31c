import { prose } from "../platform/prose.js";
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

const ROLE = prose(new URL("./prompts/role.md", import.meta.url));

function textToolSection(registry: ToolRegistry): string {
  const tools = registry
    .jsonSchemas()
    .map(
      (tool) =>
        `### ${tool.name}\n${tool.description}\nParameters (JSON Schema): ${JSON.stringify(tool.parameters)}`,
    )
    .join("\n\n");
  return prose(new URL("./prompts/text-tools.md", import.meta.url), { tools });
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
    const whose = instruction.user ? "The user's instructions, for every project" : "Project instructions";
    sections.push(`# ${whose} (${instruction.file})\n${instruction.text.trim()}`);
  }
  if (input.textTools) sections.push(textToolSection(input.textTools));
  return sections.join("\n\n");
}
