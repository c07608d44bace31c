/**
 * What a tool call produced, for renderers and scripts: one shape per kind of result, told apart
 * by `kind` (stream-json prints it inside `tool.result` as `data`). A tool from elsewhere (MCP)
 * may report none. A new shape is a new member here.
 */
import { z } from "zod";
import { todoItemSchema } from "./common.js";

const data = <K extends string, S extends z.ZodRawShape>(kind: K, shape: S, description?: string) => {
  const schema = z.object({ kind: z.literal(kind), ...shape });
  return description ? schema.describe(description) : schema;
};

const int = () => z.number().int();

export const toolDataSchema = z
  .discriminatedUnion("kind", [
    data("file_read", {
      path: z.string(),
      offset: int(),
      lines: int(),
      total_lines: int().nullable(),
    }),
    data(
      "file_change",
      {
        path: z.string(),
        diff: z.string(),
        created: z.boolean().optional().describe("only from write_file"),
        strategy: z.string().optional().describe("edit_file: how old_string matched"),
        repairs: z.array(z.string()).optional().describe("edit_file: what was fixed in the arguments first"),
      },
      "a file written, edited or appended to",
    ),
    data("file_deleted", { path: z.string() }),
    data("file_copied", { source: z.string(), destination: z.string() }),
    data("file_moved", { source: z.string(), destination: z.string() }),
    data("listing", { files: z.array(z.string()), truncated: z.boolean() }, "list_files and search_files"),
    data("tree", { lines: int(), hidden: int(), truncated: z.boolean() }),
    data("grep", {
      hits: z.array(z.object({ path: z.string(), line: int(), text: z.string() })),
      capped: z.boolean(),
      engine: z.enum(["ripgrep", "js"]),
    }),
    data("workspace", {
      root: z.string(),
      git: z
        .object({ branch: z.string().nullable(), upstream: z.string().nullable(), files: int() })
        .nullable(),
      languages: z.record(z.string(), z.number()),
      tooling: z.record(z.string(), z.string()),
      top_level: z.array(z.string()),
    }),
    data("command", {
      exit_code: int().nullable(),
      signal: z.string().nullable(),
      timed_out: z.boolean(),
      cancelled: z.boolean(),
      duration_ms: z.number(),
      output_bytes: int(),
      output_truncated: z.boolean(),
    }),
    data("git_status", {
      branch: z.string().nullable(),
      upstream: z.string().nullable(),
      ahead: int(),
      behind: int(),
      files: z
        .array(
          z.object({
            path: z.string(),
            index: z.string(),
            worktree: z.string(),
            from: z.string().optional(),
          }),
        )
        .describe(
          "porcelain letters: `index` staged, `worktree` not; `??` untracked; `from` a rename's old path",
        ),
    }),
    data("git_diff", { staged: z.boolean(), truncated: z.boolean().optional(), bytes: int().optional() }),
    data("git_log", {
      commits: z.array(
        z.object({ hash: z.string(), date: z.string(), author: z.string(), subject: z.string() }),
      ),
    }),
    data(
      "git_staged",
      { staged: z.array(z.string()) },
      "git_stage_files: `git diff --cached --name-status` lines after staging",
    ),
    data("git_commit", { hash: z.string() }),
    data("todos", { todos: z.array(todoItemSchema) }),
    data(
      "answer",
      { answered: z.boolean(), answer: z.string().optional() },
      "ask_user: `answer` is there when someone answered",
    ),
    data("advice", { available: z.boolean() }, "consult: whether a stronger model was there to ask"),
    data(
      "data_read",
      { path: z.string(), value: z.unknown().optional(), truncated: z.boolean().optional() },
      "read_json/_yaml/_ini: the parsed value, or `truncated` when it was too big to carry",
    ),
    data("data_written", { path: z.string(), bytes: int(), created: z.boolean() }, "write_json/_yaml/_ini"),
    data(
      "web_page",
      { url: z.string(), status: int(), content_type: z.string(), chars: int(), cut: z.boolean() },
      "fetch_webpage: where the content came from (after redirects), and whether it was cut",
    ),
    data("web_search", {
      backend: z.string(),
      results: z.array(z.object({ title: z.string(), url: z.string(), snippet: z.string() })),
    }),
    data(
      "mcp",
      { server: z.string(), tool: z.string().optional(), uri: z.string().optional(), images: int() },
      "a tool of an MCP server (directly or through call_mcp_tool), or a resource read",
    ),
  ])
  .meta({ id: "ToolData" });
