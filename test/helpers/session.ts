import path from "node:path";
import { Session } from "../../src/agent/session.js";
import { type ApprovalMode, configSchema } from "../../src/config/schema.js";
import type { ScriptedServer } from "../support/scriptedServer.js";
import { makeHome } from "./cli.js";

/**
 * A real `cairn do` session in `workspace`, its model the scripted server, with a home of its own:
 * for tests that drive the engine without the CLI around it.
 */
export async function scriptedSession(
  server: ScriptedServer,
  workspace: string,
  options: { approval: ApprovalMode; attended?: boolean },
): Promise<Session> {
  const home = await makeHome();
  return Session.create({
    config: configSchema.parse({
      providers: { openai: { base_url: server.openaiBaseUrl } },
      approval: options.approval,
    }),
    modelId: "openai/gpt-4o",
    workspace,
    mode: "do",
    attended: options.attended ?? false,
    env: { OPENAI_API_KEY: "sk-test", HOME: home, XDG_DATA_HOME: path.join(home, "data") },
  });
}
