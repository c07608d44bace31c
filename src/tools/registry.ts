import type { ToolDefinition } from "../model/stream.js";
import { wildcard } from "../platform/text.js";
import { toolSearchTool } from "./toolSearch.js";
import type { AnyTool, ToolSource } from "./types.js";
import { trimSchema, wireSchema } from "./wireSchema.js";

/** The tool that loads the others on demand. */
export const TOOL_SEARCH = "tool_search";

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

/** What a registry is built with besides its tools. */
export interface RegistryOptions {
  /** Where tools that come and go are found (MCP servers). */
  sources?: ToolSource[];
  /** What every tool, fixed or not, is wrapped in (checkpoints around the calls that may change files). */
  wrap?: (tool: AnyTool) => AnyTool;
  /**
   * Tools that declare themselves `deferrable` are named by `tool_search` until the model loads
   * them (config `tools.on_demand`); off, or with `tool_search` filtered out, every tool is
   * offered in full.
   */
  onDemand?: boolean;
}

/**
 * The tools a session offers: the built-in ones, then those of its sources (MCP servers), which
 * change while it runs. The order stays put between changes, so requests stay byte-identical
 * from turn to turn and the provider's cached prompt prefix holds. Deferrable tools are left out
 * of requests, named by `tool_search`, until the model loads them; a loaded tool is appended
 * after the others, so the requests before it stay a prefix of those after.
 */
export class ToolRegistry {
  private byName = new Map<string, AnyTool>();
  private readonly fixed: AnyTool[];
  private readonly filter: ToolFilter;
  private readonly sources: ToolSource[];
  /** Whether deferrable tools wait for tool_search here; a sub-agent's registry does as its parent's. */
  readonly onDemand: boolean;
  /** Deferred tools the model has loaded, in the order it did. */
  private readonly loaded: string[] = [];
  private search: AnyTool | undefined;
  /** The deferred tools tool_search names, as it was last made. */
  private listing = "";
  private schemas: ToolDefinition[] | undefined;
  private readonly parameterCache = new WeakMap<AnyTool, Record<string, unknown>>();

  private readonly wrap: (tool: AnyTool) => AnyTool;

  constructor(tools: AnyTool[], filter: ToolFilter = {}, options: RegistryOptions = {}) {
    this.filter = filter;
    this.sources = options.sources ?? [];
    this.wrap = options.wrap ?? ((tool) => tool);
    this.onDemand = (options.onDemand ?? false) && passes(filter, TOOL_SEARCH);
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
    const deferred = [...byName.values()].filter((tool) => this.isDeferrable(tool));
    // Made again only when the tools it names change: its description is part of every request.
    const listing = deferred.map((tool) => `${tool.name}\n${tool.description}`).join("\n");
    if (listing !== this.listing) {
      this.listing = listing;
      this.search = deferred.length
        ? toolSearchTool(deferred, this, (tool) => this.parameters(tool))
        : undefined;
    }
    if (this.search) byName.set(TOOL_SEARCH, this.search);
    this.byName = byName;
    this.schemas = undefined;
  }

  private isDeferrable(tool: AnyTool): boolean {
    return this.onDemand && tool.deferrable === true;
  }

  /** Resolves once every source has its tools (or has given up): before a request offers tools. */
  async ready(): Promise<void> {
    await Promise.all(this.sources.map((source) => source.ready()));
  }

  get(name: string): AnyTool | undefined {
    return this.byName.get(name);
  }

  /** Every tool, offered in full or on demand, in registration order; not the registry's own tool_search. */
  list(): AnyTool[] {
    return [...this.byName.values()].filter((tool) => tool !== this.search);
  }

  names(): string[] {
    return [...this.byName.keys()];
  }

  /** The tools offered on demand, loaded or not, in registration order. */
  deferred(): AnyTool[] {
    return this.list().filter((tool) => this.isDeferrable(tool));
  }

  /**
   * Offers deferred tools in full from the next request on (tool_search, or a call the model made
   * to one by name); returns the names that were not loaded yet.
   */
  load(names: readonly string[]): string[] {
    const fresh = names.filter((name) => {
      const tool = this.byName.get(name);
      return tool !== undefined && this.isDeferrable(tool) && !this.loaded.includes(name);
    });
    if (fresh.length) {
      this.loaded.push(...fresh);
      this.schemas = undefined;
    }
    return fresh;
  }

  /** Whether a tool is in requests now: offered in full, or loaded. */
  offers(name: string): boolean {
    const tool = this.byName.get(name);
    return tool !== undefined && (!this.isDeferrable(tool) || this.loaded.includes(name));
  }

  /** What requests carry: every tool not deferred, tool_search, then the loaded tools in load order. */
  offered(): AnyTool[] {
    const direct = [...this.byName.values()].filter((tool) => !this.isDeferrable(tool));
    // A loaded tool the source no longer offers on demand (its server has fewer tools now) is among `direct`.
    const loaded = this.loaded.flatMap((name) => {
      const tool = this.byName.get(name);
      return tool && this.isDeferrable(tool) ? [tool] : [];
    });
    return [
      ...direct.filter((tool) => tool !== this.search),
      ...(this.search ? [this.search] : []),
      ...loaded,
    ];
  }

  /** A tool's arguments as a model is sent them; converted once per tool. */
  private parameters(tool: AnyTool): Record<string, unknown> {
    let parameters = this.parameterCache.get(tool);
    if (!parameters) {
      parameters = tool.parameters ? trimSchema(tool.parameters) : wireSchema(tool.schema);
      this.parameterCache.set(tool, parameters);
    }
    return parameters;
  }

  /**
   * JSON Schema of each offered tool's parameters, as providers receive them: converted once per
   * set of tools, not per request. The same array is returned until the set changes.
   */
  jsonSchemas(): ToolDefinition[] {
    this.schemas ??= this.offered().map((tool) => ({
      name: tool.name,
      description: tool.description,
      parameters: this.parameters(tool),
    }));
    return this.schemas;
  }

  async close(): Promise<void> {
    await Promise.all(this.sources.map((source) => source.close()));
  }
}
