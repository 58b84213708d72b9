import { createHash, type Hash } from "node:crypto";
import {
  DEFAULT_MAX_BYTES,
  formatBytes,
  quote,
  SkillError,
  type SkillErrorCode,
  type SkillFolderStage,
} from "@skill/core";
import { BLOCK_BYTES } from "./http.js";
import { fileProblem, foldKey } from "./safe-path.js";
import { errorText } from "./text.js";

// The rules of an archive's entries, applied as they stream, and the queue that writes each
// file through core's stage: what the tar and zip readers feed.

export interface UnpackLimits {
  /** Most entries (files, folders, links). */
  readonly maxFiles: number;
  /** Most bytes unpacked, each file counted as at least one block. */
  readonly maxBytes: number;
}

/** A file the archive unpacked to: its size and SHA-256 (hex). */
export interface UnpackedFile {
  readonly size: number;
  readonly sha256: string;
}

/** Where an archive's bytes are: a file, or memory. */
export type ArchiveSource = string | Uint8Array;

export function refuse(code: SkillErrorCode, reason: string): SkillError {
  return new SkillError(code, `Refused the archive: ${reason}`);
}

export interface Link {
  readonly path: string;
  readonly target: string;
  readonly hard: boolean;
}

/** A file being unpacked: its bytes wait in memory until it ends, then go to the write queue. */
interface OpenFile {
  readonly path: string;
  chunks: Uint8Array[];
}

/** A file the archive holds, as unpacked so far. */
export interface Held {
  readonly path: string;
  readonly size: number;
  readonly sha256: string;
  readonly executable: boolean;
}

/** The largest `SKILL.md` whose bytes an unpack hands back (as core reads one: `DEFAULT_MAX_BYTES`). */
const HEAD_BYTES = DEFAULT_MAX_BYTES;

/** Bytes queued but not yet written, past which the reader waits for the disk. */
export const MAX_BACKLOG = 1024 * 1024;

function writeError(error: unknown, path: string): SkillError {
  if (SkillError.isInstance(error)) return error;
  return new SkillError("WRITE_ERROR", `Failed to unpack ${quote(path)} (${errorText(error)})`, {
    cause: error,
  });
}

/**
 * Collects an archive's entries into a skill folder being staged by core
 * (`stageSkillFolder`), enforcing every rule as they stream. Every rule, count and hash is
 * applied synchronously as entries arrive; each file, once whole, is written by one queue of
 * asynchronous writes through the stage (in order), so a pull's downloads go on while the disk
 * works. {@link settle} waits for the queue and reports its first failure.
 */
export class Unpacker {
  readonly files = new Map<string, Held>();
  /** The bytes of each `SKILL.md` at the root or one folder down, by path, up to {@link HEAD_BYTES}. */
  readonly heads = new Map<string, Buffer>();
  readonly dirs = new Set<string>();
  readonly links: Link[] = [];
  readonly #seen = new Set<string>();
  /** Files still arriving: reported truncated if the archive ends or fails first. */
  readonly open = new Set<OpenFile>();
  #queue: Promise<void> = Promise.resolve();
  #failure: SkillError | undefined;
  #backlog = 0;
  #entries = 0;
  #bytes = 0;

  constructor(
    readonly stage: SkillFolderStage,
    readonly limits: UnpackLimits,
  ) {}

  /** The first write that failed, if any. */
  get failure(): SkillError | undefined {
    return this.#failure;
  }

  /** Bytes handed to the writer and not yet on disk. */
  get backlog(): number {
    return this.#backlog;
  }

  #enqueue(path: string, op: () => Promise<void>): void {
    this.#queue = this.#queue.then(async () => {
      if (this.#failure) return;
      try {
        await op();
      } catch (error) {
        this.#failure ??= writeError(error, path);
      }
    });
  }

  /** Queues a whole file for the stage to write. */
  #write(path: string, body: Uint8Array, executable: boolean): void {
    this.#backlog += body.byteLength;
    this.#enqueue(path, async () => {
      await this.stage.write(path, body, { executable });
      this.#backlog -= body.byteLength;
    });
  }

  /** Waits until every queued write is on disk; throws the first that failed. */
  async settle(): Promise<void> {
    await this.#queue;
    if (this.#failure) throw this.#failure;
  }

  /** Counts one entry; returns its checked path (`""` for the archive's root folder). */
  entry(name: string, isDir: boolean): string {
    if (++this.#entries > this.limits.maxFiles) {
      throw refuse("LIMIT_EXCEEDED", `it holds more than ${this.limits.maxFiles} entries (maxArchiveFiles)`);
    }
    if (name.includes("\\") || name.includes("\0")) {
      throw refuse("UNSAFE_PATH", `entry ${quote(name)} holds a backslash or NUL`);
    }
    if (name.startsWith("/") || /^[A-Za-z]:/.test(name)) {
      throw refuse("UNSAFE_PATH", `entry ${quote(name)} is an absolute path`);
    }
    const parts = name
      .split("/")
      .filter((p, i, all) => p !== "." && !(p === "" && (i === all.length - 1 || i === 0)));
    if (parts.includes("..")) throw refuse("UNSAFE_PATH", `entry ${quote(name)} has a ".." segment`);
    const path = parts.join("/");
    if (path === "") return "";
    const problem = fileProblem(path);
    if (problem) throw refuse("UNSAFE_PATH", `entry ${quote(name)}: ${problem}`);
    const key = foldKey(path);
    if (isDir) {
      if (this.files.has(key)) throw refuse("UNSAFE_PATH", `${quote(path)} is both a file and a folder`);
      this.dirs.add(key);
      return path;
    }
    if (this.#seen.has(key) || this.dirs.has(key)) {
      throw refuse("UNSAFE_PATH", `it holds ${quote(path)} twice (names are compared case-insensitively)`);
    }
    this.#seen.add(key);
    return path;
  }

  count(bytes: number): void {
    this.#bytes += bytes;
    if (this.#bytes > this.limits.maxBytes) {
      throw refuse(
        "LIMIT_EXCEEDED",
        `it unpacks to more than ${formatBytes(this.limits.maxBytes)} (maxUnpackedBytes); stopped while inflating`,
      );
    }
  }

  /**
   * Starts a regular file; the returned writer counts and hashes synchronously, and queues the
   * whole file for the stage when it ends. An `executable` entry (any x bit in the archive) is
   * written 0755, every other one 0644: the archive's other mode bits (setuid, world-writable)
   * are never taken.
   */
  start(
    path: string,
    expected?: number,
    executable = false,
  ): { write(chunk: Uint8Array): void; end(): void } {
    // The entry name passed `fileProblem` already; the stage still places it by core's path rule.
    const parent = path.split("/").slice(0, -1);
    for (let i = 1; i <= parent.length; i++) {
      const key = foldKey(parent.slice(0, i).join("/"));
      if (this.files.has(key))
        throw refuse(
          "UNSAFE_PATH",
          `${quote(path)} is inside the file ${quote(parent.slice(0, i).join("/"))}`,
        );
      this.dirs.add(key);
    }
    const file: OpenFile = { path, chunks: [] };
    this.open.add(file);
    const hash: Hash = createHash("sha256");
    let size = 0;
    const isHead = /^([^/]+\/)?SKILL\.md$/.test(path);
    return {
      write: (chunk) => {
        this.count(chunk.byteLength);
        size += chunk.byteLength;
        hash.update(chunk);
        file.chunks.push(chunk);
      },
      end: () => {
        if (!this.open.delete(file)) return;
        if (expected !== undefined && size !== expected) {
          throw refuse("INTEGRITY_ERROR", `it ends inside ${quote(path)} (${size} of ${expected} bytes)`);
        }
        if (size < BLOCK_BYTES) this.count(BLOCK_BYTES - size);
        this.files.set(foldKey(path), { path, size, sha256: hash.digest("hex"), executable });
        const body = Buffer.concat(file.chunks);
        file.chunks = [];
        if (isHead && size <= HEAD_BYTES) this.heads.set(path, body);
        this.#write(path, body, executable);
      },
    };
  }

  /** Waits for the queue, then forgets what a failure or a truncated archive left open; returns the first such path. */
  async close(): Promise<string | undefined> {
    await this.#queue;
    const first = this.open.values().next().value?.path;
    this.open.clear();
    return first;
  }
}
