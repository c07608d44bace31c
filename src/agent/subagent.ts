import { type AgentCaps, carveCaps } from "../agents/budget.js";
import { EXPLORE, explorePrompt } from "../agents/builtins.js";
import type { AgentDefinition } from "../agents/definition.js";
import { agentProgram, commandText, notInstalled, runExternal } from "../agents/external/run.js";
import { resolveTarget, type Target, UnknownTargetError } from "../agents/targets.js";
import { AGENT_TOOL_NAMES } from "../agents/tools.js";
import type { ApprovalMode } from "../config/schema.js";
import { renderRanking } from "../context/relevance/rank.js";
import { buildSystemPrompt } from "../context/systemPrompt.js";
import type { EventBus } from "../events/bus.js";
import { ProviderError } from "../model/errors.js";
import { firstLine } from "../platform/text.js";
import { redactEvents } from "../safety/redact.js";
import { ToolRegistry } from "../tools/registry.js";
import { ToolError } from "../tools/toolError.js";
import type { AgentOutcome, AgentRequest } from "../tools/types.js";
import type { AgentContext, ModelHandle } from "./agentContext.js";
import { toolContextFor } from "./dispatch.js";
import { AgentBudgetError, BudgetExceededError } from "./ledger.js";
import { rankWorkspace } from "./relevance.js";
import { Turn } from "./turn.js";

/**
 * The loop a sub-agent runs: the tool loop, handed in by it so that neither module imports the
 * other. It runs as the agent whose turn it is given.
 */
export interface AgentLoop {
  run(turn: Turn, prompt: string): Promise<{ status: string; answer: string; reason?: string }>;
}
export type StartLoop = (maxToolCalls: number) => AgentLoop;

/** Approval modes from the most to the least careful. */
const STRICTNESS: readonly ApprovalMode[] = ["read-only", "ask", "auto-edit", "auto"];

/** A sub-agent never gets more freedom than the agent that started it. */
function stricter(a: ApprovalMode, b: ApprovalMode | undefined): ApprovalMode {
  if (b === undefined) return a;
  return STRICTNESS.indexOf(a) <= STRICTNESS.indexOf(b) ? a : b;
}

/** The tools a cairn sub-agent is offered: its allow list, never the TODO list, agent tools only by name. */
function agentRegistry(parent: ToolRegistry, definition: AgentDefinition): ToolRegistry {
  const named = definition.tools ?? [];
  const tools = parent
    .list()
    .filter((tool) => !tool.mainAgentOnly)
    .filter((tool) => !AGENT_TOOL_NAMES.includes(tool.name) || named.includes(tool.name));
  return new ToolRegistry(tools, { allow: definition.tools }, { onDemand: parent.onDemand });
}

/** The next id for an agent of this name in the session: `explore#1`, `explore#2`. */
function nextId(counts: Map<string, number>, name: string): string {
  const n = (counts.get(name) ?? 0) + 1;
  counts.set(name, n);
  return `${name}#${n}`;
}

/** How an agent's run ended, as its runner saw it. */
interface Ending {
  status: AgentOutcome["status"];
  detail?: string;
  answer: string;
  costUsd: number | null;
  /** What an external agent changed; undefined when that cannot be known. */
  files?: string[] | undefined;
}

/** One running sub-agent: its id, its view of the bus, and what it has done so far. */
class AgentRun {
  readonly id: string;
  readonly bus: EventBus;
  readonly started = Date.now();
  toolCalls = 0;
  readonly filesChanged = new Set<string>();
  readonly name: string;
  private readonly task: string;
  private readonly stopCounting: () => void;

  /** A run started by `turn`'s agent: its events are stamped with its own id and that agent's. */
  constructor(turn: Turn, name: string, task: string) {
    const { session, agent } = turn;
    this.name = name;
    this.task = task;
    this.id = nextId(session.agentCounts, name);
    this.bus = session.bus.scoped({ agent: this.id, parent: agent.id }, redactEvents(session.redact));
    this.stopCounting = session.bus.subscribe((event) => {
      if (event.agent !== this.id) return;
      if (event.type === "tool.call") this.toolCalls++;
      if (event.type === "tool.result")
        for (const file of event.changed_files ?? []) this.filesChanged.add(file);
    });
  }

  begin(model: string): void {
    this.bus.emit({
      type: "agent.status",
      name: this.name,
      task: firstLine(this.task, 200),
      model,
      status: "running",
    });
  }

  /**
   * Emits the agent's last status and says how it went. `files` are what an external agent
   * changed, undefined when that cannot be known; a cairn agent's are the ones its tools reported.
   */
  end(ending: Ending): AgentOutcome {
    this.stopCounting();
    const durationMs = Date.now() - this.started;
    const files = "files" in ending ? ending.files : [...this.filesChanged].sort();
    this.bus.emit({
      type: "agent.status",
      name: this.name,
      task: firstLine(this.task, 200),
      status: ending.status,
      ...(ending.detail ? { detail: ending.detail } : {}),
      tool_calls: this.toolCalls,
      ...(files ? { files_changed: files } : {}),
      cost_usd: ending.costUsd,
      duration_ms: durationMs,
    });
    return {
      id: this.id,
      status: ending.status,
      answer: ending.answer,
      ...(ending.detail ? { detail: ending.detail } : {}),
      filesChanged: files,
      toolCalls: this.toolCalls,
      costUsd: ending.costUsd,
      durationMs,
    };
  }
}

/**
 * A cairn sub-agent: an agent of the session with its own context (id, events, budget, tools,
 * prompt, model, policy, way of asking), in a turn of its own within the caller's.
 */
async function runCairnAgent(
  turn: Turn,
  run: AgentRun,
  definition: AgentDefinition,
  request: AgentRequest,
  caps: AgentCaps,
  startLoop: StartLoop,
): Promise<AgentOutcome> {
  const { session } = turn;
  let model: ModelHandle;
  try {
    model = definition.model ? await session.modelFor(definition.model) : turn.model;
  } catch (error) {
    run.begin(definition.model ?? turn.model.id);
    return run.end({ status: "failed", detail: (error as Error).message, answer: "", costUsd: 0 });
  }
  run.begin(model.id);
  const registry = agentRegistry(turn.agent.registry, definition);
  // The built-in explorer's prompt depends on the focus asked for; a project's own `explore` keeps its own.
  const explorer = definition === EXPLORE;
  const system = buildSystemPrompt({
    role: explorer ? explorePrompt(request.focus ?? "files") : definition.prompt,
    workspace: session.workspace,
    instructions: explorer ? [] : session.found.instructions,
    ...(model.info.toolCalls === "text" ? { textTools: registry } : {}),
  });
  const ledger = turn.agent.ledger.share(run.bus, run.name, { maxCostUsd: caps.maxCostUsd });
  const inbox = session.inbox.view(run.bus);
  const policy = turn.policy.with({
    mode: stricter(turn.policy.mode, definition.approval),
    // What it asks a person names it: its requests go out on its own view of the bus.
    ...(session.attended ? { ask: inbox.approve } : {}),
  });
  const agent: AgentContext = {
    id: run.id,
    bus: run.bus,
    ledger,
    registry,
    system,
    model,
    policy,
    inbox,
    todos: [],
  };
  const agentTurn = Turn.open(session, { agent, label: turn.label, model, policy, within: turn });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    agentTurn.abort(new Error(`${run.id} timed out`));
  }, caps.timeoutMs);
  const spent = () => ledger.totals().cost_usd;
  try {
    const prompt = explorer ? await withRanking(agentTurn, request.prompt) : request.prompt;
    const outcome = await startLoop(caps.maxToolCalls).run(agentTurn, prompt);
    if (outcome.status === "cancelled" && !timedOut) throw turn.signal.reason ?? new Error("cancelled");
    if (timedOut)
      return run.end({
        status: "failed",
        detail: timeoutDetail(caps),
        answer: outcome.answer,
        costUsd: spent(),
      });
    if (outcome.status === "failed")
      return run.end({
        status: "failed",
        detail: outcome.reason ?? "it did not finish",
        answer: outcome.answer,
        costUsd: spent(),
      });
    return run.end({ status: "done", answer: outcome.answer, costUsd: spent() });
  } catch (error) {
    if (error instanceof AgentBudgetError)
      return run.end({ status: "over_budget", detail: error.message, answer: "", costUsd: spent() });
    if (error instanceof BudgetExceededError) {
      run.end({ status: "over_budget", detail: sessionCapDetail(error), answer: "", costUsd: spent() });
      throw error;
    }
    if (timedOut)
      return run.end({ status: "failed", detail: timeoutDetail(caps), answer: "", costUsd: spent() });
    if (error instanceof ProviderError && !turn.signal.aborted)
      return run.end({ status: "failed", detail: error.message, answer: "", costUsd: spent() });
    run.end({ status: "failed", detail: (error as Error).message, answer: "", costUsd: spent() });
    throw error;
  } finally {
    clearTimeout(timer);
    agentTurn.close();
  }
}

/** Ranked files an explorer starts from. */
const EXPLORE_RANKED = 10;

/** An explorer's question with the files ranked most relevant to it: where to look first. */
async function withRanking(turn: Turn, question: string): Promise<string> {
  const ranking = await rankWorkspace(turn, question, "execution");
  if (ranking.files.length === 0) return question;
  return `${question}\n\nFiles ranked most relevant to this, best first (where to start, not a limit):\n${renderRanking(ranking, EXPLORE_RANKED)}`;
}

/** The session's own cap, reached by a sub-agent's call: the whole run stops there. */
function sessionCapDetail(error: BudgetExceededError): string {
  return `${error.message} (the session's --max-cost)`;
}

function timeoutDetail(caps: AgentCaps): string {
  return `it did not finish within ${Math.round(caps.timeoutMs / 1000)} s and was stopped`;
}

/**
 * An external coding agent, run in the workspace once cairn's approval allows it: running one
 * is an `exec` outside cairn's sandbox. Its reported usage goes to the ledger under its name.
 */
async function runExternalAgent(
  turn: Turn,
  run: AgentRun,
  target: Extract<Target, { kind: "external" }>,
  request: AgentRequest,
  caps: AgentCaps,
): Promise<AgentOutcome> {
  const { session } = turn;
  const { settings } = target;
  const spec = {
    agent: target.agent,
    prompt: request.prompt,
    command: settings.command,
    model: settings.model,
    args: settings.args,
  };
  const line = commandText(spec);
  run.begin(settings.command ?? target.agent.command);
  // Its own provider keys reach it, and no other secret of cairn's environment.
  const env = session.environmentFor([...target.agent.keys, ...settings.pass_env]);
  // Not installed is said before anyone is asked to allow it.
  const command = settings.command ?? target.agent.command;
  const program = agentProgram(command, session.workspace, env.PATH);
  if (!program)
    return run.end({ status: "failed", detail: notInstalled(target.agent, command), answer: "", costUsd: 0 });
  const summary = `${target.name}: ${firstLine(request.title ?? request.prompt, 120)}`;
  const decision = await turn.policy.check({
    callId: request.callId ?? run.id,
    tool: "task",
    permission: "exec",
    summary,
    command: { text: line, cwd: session.workspace },
    unconfined: true,
  });
  // Booked as any command is, so a task that needed it and could not get it ends saying so.
  if (decision.allowed) turn.noteCall("exec");
  else if (decision.unattended) turn.noteCall("exec", summary);
  if (!decision.allowed)
    return run.end({ status: "failed", detail: decision.reason, answer: "", costUsd: 0 });
  const outcome = await runExternal({
    ...spec,
    program,
    timeoutMs: caps.timeoutMs,
    env,
    ctx: toolContextFor(turn),
  });
  turn.noteChanged(outcome.filesChanged ?? []);
  const files = outcome.filesChanged;
  let cost: number | null = 0;
  if (outcome.usage) {
    const ledger = turn.agent.ledger.share(run.bus, run.name, {});
    try {
      cost = ledger.record({
        phase: "execution",
        modelId: outcome.usage.model ?? target.name,
        counts: outcome.usage.counts,
        price: null,
        costUsd: outcome.usage.costUsd ?? null,
        durationMs: outcome.durationMs,
        generationMs: 0,
      });
    } catch (error) {
      if (error instanceof BudgetExceededError) {
        const costUsd = ledger.totals().cost_usd;
        run.end({
          status: "over_budget",
          detail: sessionCapDetail(error),
          answer: outcome.answer,
          costUsd,
          files,
        });
      }
      throw error;
    }
  }
  if (!outcome.ok)
    return run.end({
      status: "failed",
      detail: outcome.error ?? "it failed",
      answer: outcome.answer,
      costUsd: cost,
      files,
    });
  if (caps.maxCostUsd !== undefined && cost !== null && cost > caps.maxCostUsd)
    return run.end({
      status: "over_budget",
      detail: `it reported $${cost.toFixed(4)}, over its cap of $${caps.maxCostUsd}; its work is kept`,
      answer: outcome.answer,
      costUsd: cost,
      files,
    });
  return run.end({ status: "done", answer: outcome.answer, costUsd: cost, files });
}

/**
 * Hands a job to an agent and waits for its outcome: a cairn sub-agent (a child session with
 * its own prompt, tools, fresh history and caps) or an external coding agent. Its status goes
 * on the bus as it starts and ends; a failure, a timeout or an overspent cap is an outcome the
 * caller reads, and only a cancellation or the session's own cap is thrown.
 */
export async function runAgent(
  turn: Turn,
  request: AgentRequest,
  startLoop: StartLoop,
): Promise<AgentOutcome> {
  const { session } = turn;
  let target: Target;
  try {
    target = resolveTarget(request.agent, session.found.agents.agents, session.config);
  } catch (error) {
    if (error instanceof UnknownTargetError) throw new ToolError(error.message);
    throw error;
  }
  const { config } = session;
  const definition = target.kind === "cairn" ? target.definition : undefined;
  const external = target.kind === "external" ? target.settings : undefined;
  const run = new AgentRun(turn, target.name, request.title ?? request.prompt);
  const caps = carveCaps({
    own: {
      maxCostUsd: definition?.max_cost ?? config.agents.max_cost,
      maxToolCalls: definition?.max_tool_calls ?? config.agents.max_tool_calls,
      timeoutS: definition?.timeout_s ?? external?.timeout_s ?? config.agents.timeout_s,
    },
    session: { maxCostUsd: config.max_cost_usd, spentUsd: session.ledger.root.totals().cost_usd },
  });
  if (!caps) {
    run.begin("");
    return run.end({
      status: "over_budget",
      detail: "the session's --max-cost is spent",
      answer: "",
      costUsd: 0,
    });
  }
  return target.kind === "cairn"
    ? runCairnAgent(turn, run, target.definition, request, caps, startLoop)
    : runExternalAgent(turn, run, target, request, caps);
}
