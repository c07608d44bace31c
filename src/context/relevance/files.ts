import { createHash } from "node:crypto";
import { open } from "node:fs/promises";
import type { SecretFiles } from "../../safety/secretFiles.js";
import { scopeFor, walkFiles } from "../../tools/workspaceFiles.js";

/** A workspace file as relevance ranking reads it: the start of its text and a hash of that. */
export interface CandidateFile {
  /** Workspace-relative, `/`-separated. */
  path: string;
  /** Its first MAX_TEXT_BYTES, as text. */
  text: string;
  /** sha256 of `text`: the key its embedding is cached under. */
  hash: string;
}

/** Enough of a file to know what it is about; the rest of a long file rarely changes that. */
const MAX_TEXT_BYTES = 12 * 1024;

/** Bytes of a NUL in the first block: a binary file, left out. */
function looksBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, 8192).includes(0);
}

async function readStart(file: string): Promise<Uint8Array | undefined> {
  const handle = await open(file, "r").catch(() => undefined);
  if (!handle) return undefined;
  try {
    const buffer = new Uint8Array(MAX_TEXT_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, MAX_TEXT_BYTES, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/**
 * The files of the workspace a task could be about: what list_files and grep see (.gitignore
 * applied, `.git` and `node_modules` skipped), without binary files, empty ones or those that
 * look like secrets, which are never read here, let alone sent to an embedding model.
 */
export async function candidateFiles(
  workspace: string,
  options: { secrets?: SecretFiles | undefined; maxFiles: number },
): Promise<CandidateFile[]> {
  const scope = await scopeFor({ workspace, extraRoots: [], secrets: options.secrets });
  const files: CandidateFile[] = [];
  for await (const entry of walkFiles(scope)) {
    if (files.length >= options.maxFiles) break;
    const bytes = await readStart(entry.absolute);
    if (!bytes || bytes.length === 0 || looksBinary(bytes)) continue;
    const text = Buffer.from(bytes).toString("utf8");
    files.push({ path: entry.path, text, hash: createHash("sha256").update(text).digest("hex") });
  }
  return files;
}
