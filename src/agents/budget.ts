/** What a sub-agent may spend and do. */
export interface AgentCaps {
  /** Dollars; undefined when nothing caps them. */
  maxCostUsd: number | undefined;
  maxToolCalls: number;
  timeoutMs: number;
}

export interface Carving {
  /** The agent's own caps, from its definition or the config's `agents:` defaults. */
  own: { maxCostUsd?: number | undefined; maxToolCalls: number; timeoutS: number };
  /** The session's `--max-cost`, and what it has spent so far (null when some of it is unpriced). */
  session: { maxCostUsd?: number | undefined; spentUsd: number | null };
}

/**
 * An agent's caps, carved out of the session's: it never gets more dollars than the session has
 * left. Undefined when nothing is left: the agent would be over budget before it started.
 */
export function carveCaps({ own, session }: Carving): AgentCaps | undefined {
  const left = session.maxCostUsd === undefined ? undefined : session.maxCostUsd - (session.spentUsd ?? 0);
  if (left !== undefined && left <= 0) return undefined;
  const caps = [own.maxCostUsd, left].filter((cap): cap is number => cap !== undefined);
  return {
    maxCostUsd: caps.length ? Math.min(...caps) : undefined,
    maxToolCalls: own.maxToolCalls,
    timeoutMs: own.timeoutS * 1000,
  };
}
