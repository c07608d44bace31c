import path from "node:path";
import { type AgentSession, createSession } from "../../src/agent/session.js";
import { type ApprovalMode, configSchema } from "../../src/config/schema.js";
import type { AskApproval } from "../../src/safety/approval.js";
import type { ScriptedServer } from "../support/scriptedServer.js";
import { makeHome } from "./cli.js";

/**
 * A real `cairn do` session in `workspace`, its model the scripted server, with a home of its own
 * (the checkpoints' data folder is `<home>/data/cairn`): for tests that drive the engine without
 * the CLI around it.
 */
export async function scriptedSession(
  server: ScriptedServer,
  workspace: string,
  options: { approval: ApprovalMode; ask?: AskApproval },
): Promise<{ session: AgentSession; dataDir: string }> {
  const home = await makeHome();
  const session = await createSession({
    config: configSchema.parse({
      providers: { openai: { base_url: server.openaiBaseUrl } },
      approval: options.approval,
    }),
    modelId: "openai/gpt-4o",
    workspace,
    mode: "do",
    signal: new AbortController().signal,
    env: { OPENAI_API_KEY: "sk-test", HOME: home, XDG_DATA_HOME: path.join(home, "data") },
    ...(options.ask ? { ask: options.ask } : {}),
  });
  return { session, dataDir: path.join(home, "data", "cairn") };
}
