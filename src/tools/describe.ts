/**
 * The one argument that says what a call acts on (the command, the path, the pattern...), with
 * a copy or move's destination: how a call is named in approval prompts, plans and renderers.
 */
export function mainArgument(args: unknown): string | undefined {
  if (!args || typeof args !== "object") return undefined;
  const record = args as Record<string, unknown>;
  const main =
    record.command ??
    record.path ??
    record.pattern ??
    record.source ??
    record.question ??
    record.url ??
    record.query;
  if (main === undefined) return undefined;
  const destination = record.destination !== undefined ? ` → ${String(record.destination)}` : "";
  return `${String(main)}${destination}`;
}
