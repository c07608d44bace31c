import { afterEach } from "vitest";
import type { Terminal } from "../helpers/terminal.js";
import type { ScriptedServer } from "../support/scriptedServer.js";

export { hasTmux, Terminal } from "../helpers/terminal.js";

/** What a test opens, closed once it ends, passed or failed, so the next one starts clean. */
export function closedAfterEach(): { server?: ScriptedServer; terminal?: Terminal } {
  const open: { server?: ScriptedServer; terminal?: Terminal } = {};
  afterEach(async () => {
    open.terminal?.close();
    open.terminal = undefined;
    await open.server?.close();
    open.server = undefined;
  });
  return open;
}
