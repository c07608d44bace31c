import { MUST_APPLY } from "./apply.js";
import { MUST_REFUSE } from "./refuse.js";
import type { PeerCase } from "./sources.js";

/** Every case translated from another agent's tests. */
export const PEER_CASES: readonly PeerCase[] = [...MUST_APPLY, ...MUST_REFUSE];
