import type { ToolDefinition } from "../model/stream.js";
import { wildcard } from "../platform/text.js";
import { callToolDefinition } from "./callTool.js";
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
   * Tools that declare themselves `deferrable` are named by `tool_search`, and called through
   * `call_tool`, when that makes requests smaller (config `tools.on_demand`); off, or with
   * `tool_search` filtered out, every tool is offered in full.
   */
  onDemand?: boolean;
}

/**
 * The tools a session offers: the built-in ones, then those of its sources (MCP servers), which
 * change while it runs. The order stays put between changes, so requests stay byte-identical
 * from turn to turn and the provider's cached prompt prefix holds. Deferrable tools are left out
 * of requests and named by `tool_search`, which gives the model their definitions in its answer;
 * the model then calls one through `call_tool`, which is in every request beside tool_search, or
 * by its own name. Using a deferred tool never changes the tools a request carries: providers
 * cache tools first, so a tool added to them would make the whole prompt after it new.
 */
export class ToolRegistry {
  private byName = new Map<string, AnyTool>();
  private readonly fixed: AnyTool[];
  private readonly filter: ToolFilter;
  private readonly sources: ToolSource[];
  /** Whether deferrable tools may wait for tool_search here; a sub-agent's registry does as its parent's. */
  readonly onDemand: boolean;
  /** Deferred tools the model has been given the definition of, or has called. */
  private readonly loaded = new Set<string>();
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
    const deferrable = this.onDemand ? [...byName.values()].filter((tool) => tool.deferrable === true) : [];
    // Made again only when the tools it names change: its description is part of every request.
    const listing = deferrable.map((tool) => `${tool.name}\n${tool.description}`).join("\n");
    if (listing !== this.listing) {
      this.listing = listing;
      const search = deferrable.length ? toolSearchTool(deferrable, this) : undefined;
      this.search = search && this.defersWell(deferrable, search) ? search : undefined;
    }
    if (this.search) byName.set(TOOL_SEARCH, this.search);
    this.byName = byName;
    this.schemas = undefined;
  }

  private isDeferrable(tool: AnyTool): boolean {
    return this.search !== undefined && tool.deferrable === true;
  }

  /**
   * Whether offering `deferrable` on demand makes requests smaller by more than what it adds to
   * each of them (tool_search with its listing, and call_tool) over again: a tool used through
   * tool_search costs a round trip, and its definition is then sent anyway, in the answer. The
   * two web tools alone cost what tool_search and call_tool do; a large MCP server many times it.
   */
  private defersWell(deferrable: readonly AnyTool[], search: AnyTool): boolean {
    const size = (definitions: readonly ToolDefinition[]) => JSON.stringify(definitions).length;
    const full = size(deferrable.map((tool) => this.definition(tool)));
    return full > 2 * size([this.definition(search), callToolDefinition()]);
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

  /**
   * Notes deferred tools as known to the model (tool_search gave their definitions, or it called
   * one by name); returns the names it did not know yet. The requests' tools stay as they are.
   */
  load(names: readonly string[]): string[] {
    const fresh = names.filter((name) => {
      const tool = this.byName.get(name);
      return tool !== undefined && this.isDeferrable(tool) && !this.loaded.has(name);
    });
    for (const name of fresh) this.loaded.add(name);
    return fresh;
  }

  /** Whether a tool is in requests: offered in full rather than on demand. */
  offers(name: string): boolean {
    const tool = this.byName.get(name);
    return tool !== undefined && !this.isDeferrable(tool);
  }

  /** Whether calls may name a tool through call_tool: there are tools offered on demand. */
  dispatches(): boolean {
    return this.search !== undefined;
  }

  /** What requests carry: every tool not deferred, then tool_search; call_tool goes with it. */
  offered(): AnyTool[] {
    const direct = [...this.byName.values()].filter(
      (tool) => !this.isDeferrable(tool) && tool !== this.search,
    );
    return this.search ? [...direct, this.search] : direct;
  }

  /** A tool as the model is sent it: its name, description and the JSON Schema of its arguments. */
  definition(tool: AnyTool): ToolDefinition {
    return { name: tool.name, description: tool.description, parameters: this.parameters(tool) };
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
    this.schemas ??= [
      ...this.offered().map((tool) => this.definition(tool)),
      ...(this.dispatches() ? [callToolDefinition()] : []),
    ];
    return this.schemas;
  }

  async close(): Promise<void> {
    await Promise.all(this.sources.map((source) => source.close()));
  }
}
