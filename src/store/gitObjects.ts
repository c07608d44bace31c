import { createHash, randomBytes } from "node:crypto";
import {
  closeSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { deflate, deflateSync } from "node:zlib";
import { isMissing } from "./shadowGit.js";

/*
 * The few git writes a checkpoint makes, done in-process: a snapshot is taken before every
 * change a tool makes, and starting git for each of them (hash-object, mktree, commit-tree,
 * update-ref) cost a few milliseconds apiece. Loose objects and loose refs are written exactly
 * as git writes them, so git reads, packs and collects them as its own; everything else (reading
 * the checkpoints, deleting refs, gc) is still git's.
 */

const compress = promisify(deflate);

function header(type: string, length: number): Buffer {
  return Buffer.from(`${type} ${length}\0`);
}

/** Git's object id of a blob, so a file can be compared with a snapshot without writing anything. */
export function blobId(content: Buffer): string {
  return createHash("sha1").update(header("blob", content.length)).update(content).digest("hex");
}

/**
 * Files and objects up to this size are read and compressed on the main thread: it takes less
 * than handing them to libuv's thread pool. Larger ones still go there, not to hold the loop.
 */
export const INLINE_BYTES = 256 * 1024;

/**
 * Writes one object as `git hash-object -w` does: zlib-compressed, under `objects/xx/`, via a
 * temporary file. A loose copy already there is only given a new time, as git does, which keeps
 * it from gc as long as a fresh one would be. The file system calls are synchronous, as the
 * store's SQLite ones are: an edit's snapshot writes a few small objects, and with each step a
 * round trip through libuv's thread pool (five or six an object) a snapshot waited on the
 * scheduler for milliseconds when the machine was busy.
 */
async function writeObject(
  gitDir: string,
  type: "blob" | "tree" | "commit",
  content: Buffer,
): Promise<string> {
  const head = header(type, content.length);
  const id = createHash("sha1").update(head).update(content).digest("hex");
  const dir = path.join(gitDir, "objects", id.slice(0, 2));
  const file = path.join(dir, id.slice(2));
  const now = new Date();
  try {
    utimesSync(file, now, now);
    return id;
  } catch {
    // Not there (or not ours to touch, as git judges it too): written anew.
  }
  const whole = Buffer.concat([head, content]);
  const compressed = whole.length <= INLINE_BYTES ? deflateSync(whole) : await compress(whole);
  mkdirSync(dir, { recursive: true });
  const temp = path.join(dir, `tmp_obj_${randomBytes(6).toString("hex")}`);
  writeFileSync(temp, compressed, { mode: 0o444 });
  renameSync(temp, file);
  return id;
}

export function writeBlob(gitDir: string, content: Buffer): Promise<string> {
  return writeObject(gitDir, "blob", content);
}

/** A tree holding each blob under its own id as its name, as `git mktree` makes it. */
export function writeBlobTree(gitDir: string, blobs: Iterable<string>): Promise<string> {
  const entries = [...new Set(blobs)]
    .sort()
    .map((id) => Buffer.concat([Buffer.from(`100644 ${id}\0`), Buffer.from(id, "hex")]));
  return writeObject(gitDir, "tree", Buffer.concat(entries));
}

/** A commit of `tree` with no parent and `message` as it is, as `git commit-tree` makes it. */
export function writeCommit(gitDir: string, tree: string, message: string, at: Date): Promise<string> {
  const who = `cairn <cairn@localhost> ${Math.floor(at.getTime() / 1000)} +0000`;
  const text = `tree ${tree}\nauthor ${who}\ncommitter ${who}\n\n${message}`;
  return writeObject(gitDir, "commit", Buffer.from(text));
}

/** Another writer moved the ref since it was read: nothing was written. */
export class RefMoved extends Error {
  override name = "RefMoved";
}

/** The value of a ref: its loose file, or else its line in `packed-refs` (where gc moves refs). */
function readRef(gitDir: string, ref: string): string | undefined {
  try {
    return readFileSync(path.join(gitDir, ref), "utf8").trim();
  } catch (error) {
    if (!isMissing(error)) throw error;
  }
  let packed: string;
  try {
    packed = readFileSync(path.join(gitDir, "packed-refs"), "utf8");
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
  const line = packed.split("\n").find((entry) => !entry.startsWith("#") && entry.endsWith(` ${ref}`));
  return line?.slice(0, line.indexOf(" "));
}

/**
 * Points `ref` at `id` if it still points at `expected` (undefined: if it does not exist yet),
 * as `git update-ref <ref> <id> <expected>` does, under git's own lock file, so that a concurrent
 * writer, cairn or git, fails rather than loses the other's update. Synchronous, as the objects
 * are written: a few small files.
 */
export function updateRef(gitDir: string, ref: string, id: string, expected: string | undefined): void {
  const file = path.join(gitDir, ref);
  const lock = `${file}.lock`;
  mkdirSync(path.dirname(file), { recursive: true });
  let fd: number;
  try {
    fd = openSync(lock, "wx");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") throw new RefMoved(`${ref} is being updated`);
    throw error;
  }
  try {
    const current = readRef(gitDir, ref);
    if (current !== expected)
      throw new RefMoved(`${ref} is at ${current ?? "nothing"}, not ${expected ?? "nothing"}`);
    writeFileSync(fd, `${id}\n`);
    closeSync(fd);
    fd = -1;
    renameSync(lock, file);
  } catch (error) {
    if (fd !== -1) {
      try {
        closeSync(fd);
      } catch {}
    }
    rmSync(lock, { force: true });
    throw error;
  }
}
