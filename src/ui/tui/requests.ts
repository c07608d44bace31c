import { useEffect, useState } from "react";
import type { ActionFeed } from "./feed.js";
import type { Interactions, Pending } from "./interactions.js";

/**
 * The request the agent waits on (an approval, a question), shown in a panel. It comes straight
 * from the agent, ahead of the events batched for the next frame: those go first, so the call
 * being approved is on screen with it. `onRequest` is told when one comes.
 */
export function usePendingRequest(
  interactions: Interactions,
  feed: ActionFeed,
  onRequest: () => void,
): Pending | undefined {
  const [pending, setPending] = useState<Pending | undefined>();
  useEffect(
    () =>
      interactions.watch((current) => {
        feed.flush();
        setPending(current);
        if (current) onRequest();
      }),
    [interactions, feed, onRequest],
  );
  return pending;
}
