import { z } from "zod";
import { readEntries } from "../../batch/spec.js";

/** An issue or pull request as `gh issue list --json number,title,body` gives it; other fields are ignored. */
const issueSchema = z.object({
  number: z.coerce.number().int().positive(),
  title: z.string(),
  body: z.string().nullable().default(""),
});

export type IssueText = z.infer<typeof issueSchema>;

/** The issue texts of `--issues` (.jsonl, .json or .yaml), by number. */
export async function loadIssues(file: string): Promise<Map<number, IssueText>> {
  const entries = await readEntries(file, issueSchema, "issues");
  return new Map(entries.map(({ value }) => [value.number, value]));
}

/** `#12`, `(#12)`, `fixes #12`, `GH-12`: the issue and pull request numbers a message names. */
export function issueNumbers(message: string): number[] {
  const numbers = [...message.matchAll(/(?:^|[^\w&/])#(\d+)\b|\bGH-(\d+)\b/gi)].map((match) =>
    Number(match[1] ?? match[2]),
  );
  return [...new Set(numbers)];
}

/** Trailers git and review tools add: who signed, reviewed, co-wrote it. */
const TRAILER = /^(Signed-off-by|Co-authored-by|Reviewed-by|Acked-by|Tested-by|Reported-by|Change-Id|Cc):/i;

/** The message without its trailers (the last paragraph when every line of it is one). */
function withoutTrailers(message: string): string {
  const paragraphs = message.trim().split(/\n\s*\n/);
  const last = paragraphs.at(-1) ?? "";
  const isTrailers = last.split("\n").every((line) => TRAILER.test(line.trim()));
  return (isTrailers && paragraphs.length > 1 ? paragraphs.slice(0, -1) : paragraphs).join("\n\n").trim();
}

/**
 * The task an instance sets: the commit's message (trailers left out), then the text of each
 * issue or pull request it names that the issues file holds.
 */
export function problemStatement(message: string, issues: ReadonlyMap<number, IssueText>): string {
  const named = issueNumbers(message).flatMap((number) => {
    const issue = issues.get(number);
    return issue ? [`## #${issue.number}: ${issue.title}\n\n${(issue.body ?? "").trim()}`.trim()] : [];
  });
  return [withoutTrailers(message), ...named].join("\n\n");
}
