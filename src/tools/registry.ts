import { z } from "zod";
import type { ToolDefinition } from "../model/stream.js";
import { wildcard } from "../platform/text.js";
import type { AnyTool, ToolSource } from "./types.js";

export interface ToolFilter {
  allow?: string[] | undefined;
  deny?: string[] | undefined;
}

/** `*` is the only wildcard: tool rules name tools or families like `git_*`. */
export function matchesName(pattern: string, name: string): boolean {
  return wildcard(pattern).test(name);
}

/** Whether a filter (`allow`, then `deny`) lets a tool through. */
export function passes(filter: ToolFilter, name: string): boolean {
  if (filter.allow && !filter.allow.some((p) => matchesName(p, name))) return false;
  return !filter.deny?.some((p) => matchesName(p, name));
}

/**
 * The tools a session offers: the built-in ones, then those of its sources (MCP servers), which
 * change while it runs. The order stays put between changes, so requests stay byte-identical
 * from turn to turn and the provider's cached prompt prefix holds.
 */
export class ToolRegistry {
  private byName = new Map<string, AnyTool>();
  private readonly fixed: AnyTool[];
  private readonly filter: ToolFilter;
  private readonly sources: ToolSource[];
  private schemas: ToolDefinition[] | undefined;

  private readonly wrap: (tool: AnyTool) => AnyTool;

  /**
   * `sources`: where tools that come and go are found; `wrap`: what every tool, fixed or not, is
   * wrapped in (checkpoints around the calls that may change files).
   */
  constructor(
    tools: AnyTool[],
    filter: ToolFilter = {},
    options: { sources?: ToolSource[]; wrap?: (tool: AnyTool) => AnyTool } = {},
  ) {
    this.filter = filter;
    this.sources = options.sources ?? [];
    this.wrap = options.wrap ?? ((tool) => tool);
    this.fixed = tools.filter((tool) => passes(filter, tool.name)).map(this.wrap);
    const names = new Set<string>();
    for (const tool of this.fixed) {
      if (names.has(tool.name)) throw new Error(`Two tools are named ${tool.name}.`);
      names.add(tool.name);
    }
    for (const source of this.sources) source.subscribe(() => this.refresh());
    this.refresh();
  }

  /** The fixed tools first; a source's tool whose name is taken is left out. */
  private refresh(): void {
    const byName = new Map(this.fixed.map((tool) => [tool.name, tool]));
    for (const tool of this.sources.flatMap((source) => source.tools())) {
      if (!byName.has(tool.name) && passes(this.filter, tool.name)) byName.set(tool.name, this.wrap(tool));
    }
    this.byName = byName;
    this.schemas = undefined;
  }

  /** Resolves once every source has its tools (or has given up): before a request offers tools. */
  async ready(): Promise<void> {
    await Promise.all(this.sources.map((source) => source.ready()));
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
   * JSON Schema of each tool's parameters, as providers receive them: converted once per set of
   * tools, not per request. The same array is returned until the set changes.
   */
  jsonSchemas(): ToolDefinition[] {
    this.schemas ??= this.list().map((tool) => ({
      name: tool.name,
      description: tool.description,
      parameters:
        tool.parameters ?? (z.toJSONSchema(tool.schema, { io: "input" }) as Record<string, unknown>),
    }));
    return this.schemas;
  }

  async close(): Promise<void> {
    await Promise.all(this.sources.map((source) => source.close()));
  }
}
