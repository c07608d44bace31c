import { MUST_APPLY } from "./apply.js";
import { FROM_CONTINUE } from "./continue.js";
import { FROM_OTHERS } from "./others.js";
import { MUST_REFUSE } from "./refuse.js";
import { FROM_ROO } from "./roo.js";
import type { PeerCase } from "./sources.js";

/** Every case translated from another agent's tests. */
export const PEER_CASES: readonly PeerCase[] = [
  ...MUST_APPLY,
  ...MUST_REFUSE,
  ...FROM_CONTINUE,
  ...FROM_ROO,
  ...FROM_OTHERS,
];
