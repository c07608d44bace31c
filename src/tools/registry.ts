import { z } from "zod";
import type { ToolDefinition } from "../model/stream.js";
import { wildcard } from "../platform/text.js";
import type { AnyTool } from "./types.js";

/** Names what a call acts on, in a few words: how renderers title tool calls. */
export type ToolDescriber = (tool: string, args: unknown) => string;

export interface ToolFilter {
  allow?: string[] | undefined;
  deny?: string[] | undefined;
}

/** `*` is the only wildcard: tool rules name tools or families like `git_*`. */
function matches(pattern: string, name: string): boolean {
  return wildcard(pattern).test(name);
}

export class ToolRegistry {
  private readonly byName = new Map<string, AnyTool>();

  constructor(tools: AnyTool[], filter: ToolFilter = {}) {
    for (const tool of tools) {
      if (filter.allow && !filter.allow.some((p) => matches(p, tool.name))) continue;
      if (filter.deny?.some((p) => matches(p, tool.name))) continue;
      if (this.byName.has(tool.name)) throw new Error(`Two tools are named ${tool.name}.`);
      this.byName.set(tool.name, tool);
    }
  }

  get(name: string): AnyTool | undefined {
    return this.byName.get(name);
  }

  /** In registration order, which is stable, so requests stay byte-identical across turns. */
  list(): AnyTool[] {
    return [...this.byName.values()];
  }

  names(): string[] {
    return [...this.byName.keys()];
  }

  /**
   * How a call is titled wherever it is shown: its tool's own `describe`, or "" for a tool not
   * here or arguments that do not fit its schema (a call the model got wrong).
   */
  describe(name: string, args: unknown): string {
    const tool = this.byName.get(name);
    const parsed = tool?.schema.safeParse(args);
    return tool && parsed?.success ? tool.describe(parsed.data) : "";
  }

  private schemas: ToolDefinition[] | undefined;

  /** JSON Schema of each tool's parameters, as providers receive them; converted once, as tools never change. */
  jsonSchemas(): ToolDefinition[] {
    this.schemas ??= this.list().map((tool) => ({
      name: tool.name,
      description: tool.description,
      parameters: z.toJSONSchema(tool.schema, { io: "input" }) as Record<string, unknown>,
    }));
    return this.schemas;
  }
}
