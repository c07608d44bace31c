/** Tier 0 of routing: messages whose intent is plain from the text, decided without a model. */
export interface PatternRoute {
  kind: "chitchat";
  reason: string;
}

const CHITCHAT =
  /^\s*(hi|hello|hey|hiya|yo|good (morning|afternoon|evening)|thanks?( you)?|thank you( very much)?|thx|ty|cheers|ok(ay)?|great|nice|bye|goodbye)\b[\s!.,:)]*(cairn)?[\s!.]*$/i;

export function routeByPattern(task: string): PatternRoute | undefined {
  if (CHITCHAT.test(task)) return { kind: "chitchat", reason: "greeting or thanks: answered without tools" };
  return undefined;
}
