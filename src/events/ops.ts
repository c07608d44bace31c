/**
 * What a front end tells a conversation, the one way in as events are the one way out (Codex's
 * `Submission { op }`): the person's input, their answers, an interrupt, a change of model or
 * approval mode, a command of their own, a custom command, a note for the model, a request to
 * compact, to start over or to continue a stored session. Each is data, so it can be sent over any
 * transport and checked the same way.
 */
import { z } from "zod";
import { APPROVAL_MODES, approvalChoiceSchema, modeSchema } from "./common.js";

const op = <T extends string, S extends z.ZodRawShape>(type: T, description: string, shape: S) =>
  z.object({ type: z.literal(type), ...shape }).describe(description);

export const OPS = [
  op("user_input", "the person's input: a task to do or run, or a chat message", {
    mode: modeSchema.describe("do: one tool loop; run: to a verified finish; chat: the next message"),
    text: z.string().min(1),
    agent: z
      .string()
      .optional()
      .describe("a delegation target that carries out the work instead (`agent:codex`, `llm:cheap`)"),
    attachments: z
      .array(z.object({ name: z.string(), text: z.string() }))
      .optional()
      .describe("files the person put beside the message (an editor's @-mentions), for the model only"),
    images: z
      .array(z.object({ data: z.string().describe("base64"), mediaType: z.string() }))
      .optional()
      .describe("images with the message, for a model that takes them"),
    context: z
      .string()
      .optional()
      .describe("do and run: what the caller says about the task apart from it, given to the model with it"),
    greetings_to_model: z
      .boolean()
      .optional()
      .describe(
        "do: a greeting or a thanks goes to the model too, where cairn would answer it itself (`cairn -p`)",
      ),
  }),
  op("approve", "answers an `approval.requested`", {
    request_id: z.string(),
    choice: approvalChoiceSchema,
    reason: z.string().optional().describe("with deny: why, told to the model"),
  }),
  op("answer", "answers a `question.asked`; null gives no answer", {
    request_id: z.string(),
    answer: z.string().nullable(),
  }),
  op("interrupt", "stops what runs now, keeping its work; whatever waits for an answer is declined", {
    reason: z.string().optional(),
  }),
  op(
    "override",
    "from the next call on: another model (a profile or provider/model id), another approval mode",
    {
      model: z.string().optional(),
      approval: z.enum(APPROVAL_MODES).optional(),
    },
  ),
  op(
    "shell",
    "a command the person runs themselves (`!command`): a turn of its own, shown to the model after",
    {
      command: z.string().min(1),
    },
  ),
  op("compact", "shrinks the conversation now instead of when the context window fills", {}),
  op(
    "command",
    "a custom command (`.cairn/commands/<name>.md`): its prompt with the arguments, a turn on its model with its allowed tools",
    {
      name: z.string().min(1).describe("the command's name, without the slash"),
      arguments: z.string().optional().describe("what was typed after the name, as typed"),
      mode: z
        .enum(["chat", "do"])
        .optional()
        .describe(
          "chat (the default): a message of the conversation; do: the session's one task (`cairn -p`)",
        ),
      agent: z.string().optional().describe("do: a delegation target that carries out the work instead"),
    },
  ),
  op("note", "something the model should know with the next message, such as files the person put back", {
    text: z.string().min(1),
  }),
  op("clear", "starts a new conversation, in a new session; the approval mode chosen stays", {}),
  op(
    "resume",
    "continues a stored session: a chat from its history, an interrupted do or run from where its log left off",
    {
      session_id: z.string().min(1),
    },
  ),
] as const;

export const opSchema = z
  .discriminatedUnion("type", OPS)
  .meta({ id: "Op", description: "one operation a front end submits to a conversation" });
