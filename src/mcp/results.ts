import type { CallToolResult, ContentBlock, ReadResourceResult } from "@modelcontextprotocol/sdk/types.js";
import type { ToolData } from "../events/types.js";
import { truncateHeadTail } from "../platform/truncate.js";
import { describeSize } from "../tools/fileText.js";
import { ToolError } from "../tools/toolError.js";
import type { ToolImage, ToolOutput } from "../tools/types.js";
import type { McpLaunch } from "./servers.js";

type ResourceContents = ReadResourceResult["contents"][number];

/** The SDK's error codes for a request that timed out and a connection that closed (its `ErrorCode`). */
const REQUEST_TIMEOUT = -32001;
const CONNECTION_CLOSED = -32000;

/** Bytes a base64 text stands for. */
const decodedSize = (base64: string): number => Math.floor((base64.length * 3) / 4);

/** Collects a result's parts: text for every model, images for those that take them. */
class Parts {
  readonly texts: string[] = [];
  readonly images: ToolImage[] = [];

  image(data: string, mediaType: string, label: string): void {
    this.images.push({ data, mediaType });
    this.texts.push(
      `[image ${this.images.length}: ${label}, ${mediaType}, ${describeSize(decodedSize(data))}]`,
    );
  }

  resource(contents: ResourceContents): void {
    const type = contents.mimeType ?? "unknown type";
    if ("text" in contents && typeof contents.text === "string") {
      this.texts.push(`[resource ${contents.uri} (${type})]\n${contents.text}`);
    } else if ("blob" in contents && typeof contents.blob === "string") {
      if (contents.mimeType?.startsWith("image/")) this.image(contents.blob, contents.mimeType, contents.uri);
      else
        this.texts.push(
          `[binary resource ${contents.uri}: ${type}, ${describeSize(decodedSize(contents.blob))}]`,
        );
    }
  }

  block(block: ContentBlock): void {
    switch (block.type) {
      case "text":
        this.texts.push(block.text);
        break;
      case "image":
        this.image(block.data, block.mimeType, "from the tool");
        break;
      case "audio":
        this.texts.push(
          `[audio: ${block.mimeType}, ${describeSize(decodedSize(block.data))}; not passed on]`,
        );
        break;
      case "resource":
        this.resource(block.resource);
        break;
      case "resource_link":
        this.texts.push(
          `[resource link: ${block.uri}${block.name ? ` (${block.name})` : ""}${block.description ? ` — ${block.description}` : ""}; read it with read_mcp_resource]`,
        );
        break;
    }
  }

  /** Long text keeps its start and end, as run_command's output does. */
  output(about: { server: string; tool?: string; uri?: string }): ToolOutput {
    const text = truncateHeadTail(this.texts.join("\n\n") || "(no content)").text;
    const data: ToolData = { kind: "mcp", ...about, images: this.images.length };
    return { text, data, ...(this.images.length ? { images: this.images } : {}) };
  }
}

/** A tool's result for the model; a result marked `isError` is the call's error. */
export function toolOutput(result: CallToolResult, server: string, tool: string): ToolOutput {
  const parts = new Parts();
  for (const block of result.content ?? []) parts.block(block);
  if (parts.texts.length === 0 && result.structuredContent !== undefined)
    parts.texts.push(JSON.stringify(result.structuredContent, null, 2));
  const output = parts.output({ server, tool });
  if (result.isError) throw new ToolError(`${server}/${tool} returned an error: ${output.text}`);
  return output;
}

/** A resource's contents for the model. */
export function resourceOutput(result: ReadResourceResult, server: string, uri: string): ToolOutput {
  const parts = new Parts();
  for (const contents of result.contents) parts.resource(contents);
  return parts.output({ server, uri });
}

/** What went wrong, in the words a person needs: a missing program, a refused connection, a timeout. */
export function describeFailure(error: unknown, launch: McpLaunch | undefined, timeoutMs: number): string {
  const err = error as Error & { code?: unknown };
  if (err?.code === "ENOENT" && launch?.transport === "stdio") return `${launch.command}: command not found`;
  if (err?.code === REQUEST_TIMEOUT) return `no answer within ${timeoutMs} ms`;
  if (err?.code === CONNECTION_CLOSED)
    return launch?.transport === "stdio" ? "the server exited" : "the connection closed";
  const message = err instanceof Error ? err.message : String(error);
  return message.replace(/^MCP error -?\d+: /, "");
}
