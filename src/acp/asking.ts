import path from "node:path";
import type {
  AgentContext,
  ClientCapabilities,
  PermissionOption,
  ToolCallContent,
  ToolCallUpdate,
} from "@agentclientprotocol/sdk";
import { AnswerError, type Conversation } from "../agent/conversation.js";
import type { ApprovalChoice, EventOf } from "../events/types.js";
import { fencedCode } from "./updates.js";

/** The choices cairn offers, as the editor's buttons; "always" as cairn keeps it, in its words. */
function permissionOptions(event: EventOf<"approval.requested">): PermissionOption[] {
  const always = event.prompt.always?.join(", ") ?? event.prompt.tool;
  const names: Record<ApprovalChoice, [string, PermissionOption["kind"]]> = {
    once: ["Allow once", "allow_once"],
    session: [`Always allow ${always} in this session`, "allow_always"],
    workspace: [
      `Always allow ${always} in this workspace (saved in your settings for this folder)`,
      "allow_always",
    ],
    deny: ["Reject", "reject_once"],
  };
  return event.options.map((choice) => {
    const [name, kind] = names[choice];
    return { optionId: choice, name, kind };
  });
}

/** What a person should see to judge the call: the change or the command, and why it is risky. */
function promptContent(event: EventOf<"approval.requested">, workspace: string): ToolCallContent[] {
  const { change, command, code, dangers, network } = event.prompt;
  const content: ToolCallContent[] = [];
  if (change) {
    content.push({
      type: "diff",
      path: path.resolve(workspace, change.path),
      oldText: change.old_text,
      newText: change.new_text,
    });
  }
  const notes = [
    ...(command ? [`\`\`\`sh\n${command.text}\n\`\`\`\nin ${command.cwd}`] : []),
    ...(code ? [fencedCode(code)] : []),
    ...dangers.map((danger) => `**Dangerous:** ${danger}`),
    ...(network ? ["It would get the network, which the sandbox otherwise cuts."] : []),
  ];
  if (notes.length) content.push({ type: "content", content: { type: "text", text: notes.join("\n\n") } });
  return content;
}

/**
 * Why the person said no, where their editor lets them say (cairn.el puts it in the response's
 * `_meta.cairn.reason`, as the terminal asks "why not?"): the model is told.
 */
function givenReason(meta: Record<string, unknown> | null | undefined): string | undefined {
  const said = (meta?.cairn as { reason?: unknown } | undefined)?.reason;
  return typeof said === "string" && said.trim() ? said.trim() : undefined;
}

/** Where approvals and questions go: the editor, on behalf of one session. */
export interface Asker {
  client: AgentContext;
  sessionId: string;
  capabilities: ClientCapabilities | undefined;
  conversation: Conversation;
}

/** A reply to what is no longer waiting (an interrupt declined it first) changes nothing. */
async function submitted(work: Promise<unknown>): Promise<void> {
  await work.catch((error: unknown) => {
    if (!(error instanceof AnswerError)) throw error;
  });
}

/**
 * Asks the editor to approve a tool call (`session/request_permission`) and gives the session
 * the answer: a rejection reaches the model as the user's refusal; a cancelled prompt, or an
 * editor that cannot ask, declines.
 */
export async function askPermission(
  asker: Asker,
  event: EventOf<"approval.requested">,
  toolCall: ToolCallUpdate,
): Promise<ApprovalChoice> {
  const { client, sessionId, conversation } = asker;
  let choice: ApprovalChoice = "deny";
  let reason: string | undefined;
  try {
    const response = await client.request("session/request_permission", {
      sessionId,
      toolCall: { ...toolCall, content: promptContent(event, conversation.view().workspace) },
      options: permissionOptions(event),
    });
    const picked = response.outcome.outcome === "selected" ? response.outcome.optionId : undefined;
    choice = event.options.find((option) => option === picked) ?? "deny";
    if (!picked) reason = "the prompt was cancelled";
    else if (choice === "deny") reason = givenReason(response._meta);
  } catch (error) {
    reason = `the editor could not ask (${error instanceof Error ? error.message : String(error)})`;
  }
  await submitted(
    conversation.submit({
      type: "approve",
      request_id: event.request_id,
      choice,
      ...(reason ? { reason } : {}),
    }),
  );
  return choice;
}

/**
 * Puts a question of the model's (ask_user) to the person through the editor's form
 * (`elicitation/create`); an editor without forms, or a person who declines, gives no answer,
 * and the model goes on with its own judgement.
 */
export async function askQuestion(asker: Asker, event: EventOf<"question.asked">): Promise<void> {
  const { client, sessionId, capabilities } = asker;
  let answer: string | null = null;
  if (capabilities?.elicitation?.form) {
    try {
      const response = await client.request("elicitation/create", {
        mode: "form",
        sessionId,
        message: event.question,
        requestedSchema: {
          type: "object",
          properties: { answer: { type: "string", title: "Answer" } },
          required: ["answer"],
        },
      });
      const { content } = response as { content?: Record<string, unknown> | null };
      const given = response.action === "accept" ? content?.answer : undefined;
      answer = typeof given === "string" ? given : null;
    } catch {
      answer = null;
    }
  }
  await submitted(asker.conversation.submit({ type: "answer", request_id: event.request_id, answer }));
}
