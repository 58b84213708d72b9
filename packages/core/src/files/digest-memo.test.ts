import { mkdir, open, readFile, stat, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { removeTempDirs, tempDir } from "@skill/test-utils";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { SkillError } from "../spec/errors.js";
import { sha256Digest } from "./digest.js";
import { digestMemo } from "./digest-memo.js";

afterAll(removeTempDirs);

const HOUR_AGO = new Date(Date.now() - 3_600_000);
let root: string;

beforeEach(async () => {
  root = await tempDir("skill-digest-memo-");
});

/** Writes `text` to `rel` with an mtime an hour old: not racily clean. */
async function settled(rel: string, text: string): Promise<string> {
  const path = join(root, rel);
  await writeFile(path, text);
  await utimes(path, HOUR_AGO, HOUR_AGO);
  return path;
}

/** Writes `text` to `rel` with an mtime of now, to the millisecond (so that it can be put back exactly). */
async function fresh(rel: string, text: string): Promise<string> {
  const path = join(root, rel);
  await writeFile(path, text);
  const now = new Date();
  await utimes(path, now, now);
  return path;
}

/** Rewrites `path` in place (same inode), then puts its mtime back as it was. */
async function rewriteInPlace(path: string, text: string): Promise<void> {
  const before = await stat(path);
  const handle = await open(path, "r+");
  try {
    await handle.write(text, 0);
  } finally {
    await handle.close();
  }
  await utimes(path, before.atime, before.mtime);
  const after = await stat(path);
  expect([after.ino, after.size, after.mtimeMs]).toEqual([before.ino, before.size, before.mtimeMs]);
}

async function code(promise: Promise<unknown>): Promise<string | undefined> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (error === undefined) return undefined;
  return SkillError.isInstance(error) ? error.code : String(error);
}

describe("digestMemo", () => {
  it("gives the digest, size and UTF-8-ness of a file's bytes, keyed by its state", async () => {
    const path = await settled("a.md", "héllo\n");
    const memo = digestMemo();
    const found = await memo.digest(root, "a.md");
    const stats = await stat(path);
    expect(found).toEqual({
      key: {
        path,
        dev: stats.dev,
        ino: stats.ino,
        size: stats.size,
        mtimeMs: stats.mtimeMs,
        ctimeMs: stats.ctimeMs,
      },
      digest: sha256Digest(await readFile(path)),
      size: 7,
      utf8: true,
    });
    await writeFile(join(root, "b.bin"), new Uint8Array([0xff, 0xfe]));
    expect((await memo.digest(root, "b.bin")).utf8).toBe(false);
  });

  it("hashes an unchanged file once, and again once it changes", async () => {
    const path = await settled("a.md", "one\n");
    const memo = digestMemo();
    const first = await memo.digest(root, "a.md");
    expect(await memo.digest(root, "a.md")).toBe(first);
    expect(memo.stats()).toEqual({ entries: 1, hashed: 1, hits: 1, joined: 0 });
    await writeFile(path, "two, longer\n");
    expect((await memo.digest(root, "a.md")).digest).toBe(sha256Digest("two, longer\n"));
    expect(memo.stats()).toMatchObject({ entries: 1, hashed: 2 });
  });

  it("reads a file once for every caller asking at the same time", async () => {
    await settled("a.md", "shared\n");
    const memo = digestMemo();
    let reads = 0;
    const read = async () => {
      reads++;
      await new Promise((resolve) => setTimeout(resolve, 20));
      return new TextEncoder().encode("shared\n");
    };
    const all = await Promise.all(Array.from({ length: 50 }, () => memo.digest(root, "a.md", { read })));
    expect(reads).toBe(1);
    expect(new Set(all.map((d) => d.digest))).toEqual(new Set([sha256Digest("shared\n")]));
    expect(memo.stats()).toEqual({ entries: 1, hashed: 1, hits: 0, joined: 49 });
  });

  it("hashes again a file that was racily clean, so an in-place rewrite with its mtime put back is seen", async () => {
    const path = await fresh("a.md", "old!\n"); // within 2 s of the hash
    const memo = digestMemo();
    expect((await memo.digest(root, "a.md")).digest).toBe(sha256Digest("old!\n"));
    await rewriteInPlace(path, "new!\n");
    expect((await memo.digest(root, "a.md")).digest).toBe(sha256Digest("new!\n"));
  });

  it("sees a rewrite of a file older than 2 s that keeps size, inode and mtime: its change time moved", async () => {
    const path = await settled("a.md", "old!\n");
    const memo = digestMemo();
    await memo.digest(root, "a.md");
    expect((await memo.digest(root, "a.md")).digest).toBe(sha256Digest("old!\n"));
    expect(memo.stats()).toMatchObject({ hashed: 1, hits: 1 });
    await rewriteInPlace(path, "new!\n");
    expect((await memo.digest(root, "a.md")).digest).toBe(sha256Digest("new!\n"));
    // `read` always reads, and what it read replaces the digest held.
    const served = await memo.read(root, "a.md");
    expect(new TextDecoder().decode(served.bytes)).toBe("new!\n");
    expect(served.digest.digest).toBe(sha256Digest("new!\n"));
  });

  it("uses the clock it is given for the racily-clean rule", async () => {
    const path = await fresh("a.md", "old!\n");
    const mtime = (await stat(path)).mtimeMs;
    // By its own clock the file is 2 s old at the hash: the second ask is a hit.
    const later = digestMemo({ now: () => mtime + 2_001 });
    await later.digest(root, "a.md");
    await later.digest(root, "a.md");
    expect(later.stats()).toMatchObject({ hashed: 1, hits: 1 });
    // By the real clock it is racily clean: hashed again.
    const now = digestMemo();
    await now.digest(root, "a.md");
    await now.digest(root, "a.md");
    expect(now.stats()).toMatchObject({ hashed: 2, hits: 0 });
  });

  it("refuses what is gone, not a file, too large or outside, before any read", async () => {
    await mkdir(join(root, "folder"));
    await settled("big.md", "x".repeat(100));
    const memo = digestMemo();
    let reads = 0;
    const read = async () => {
      reads++;
      return new Uint8Array(0);
    };
    expect(await code(memo.digest(root, "gone.md", { read }))).toBe("NOT_FOUND");
    expect(await code(memo.digest(root, "folder", { read }))).toBe("READ_ERROR");
    expect(await code(memo.digest(root, "big.md", { read, maxBytes: 99 }))).toBe("LIMIT_EXCEEDED");
    expect(await code(memo.read(root, "big.md", { read, maxBytes: 99 }))).toBe("LIMIT_EXCEEDED");
    expect(await code(memo.digest(root, "../a.md", { read }))).toBe("UNSAFE_PATH");
    expect(reads).toBe(0);
    expect(await code(memo.digest(root, "big.md", { maxBytes: 100 }))).toBe(undefined);
  });

  it("reads through core's safe reader by default: a link leading out is refused", async () => {
    const outside = await tempDir("skill-digest-outside-");
    await writeFile(join(outside, "secret"), "secret");
    const { symlink } = await import("node:fs/promises");
    await symlink(join(outside, "secret"), join(root, "leak.md"));
    expect(await code(digestMemo().digest(root, "leak.md"))).toBe("UNSAFE_PATH");
  });

  it("holds at most maxEntries digests, the oldest stored going first", async () => {
    for (const name of ["a", "b", "c"]) await settled(`${name}.md`, name);
    const memo = digestMemo({ maxEntries: 2 });
    for (const name of ["a", "b", "c"]) await memo.digest(root, `${name}.md`);
    expect(memo.stats().entries).toBe(2);
    await memo.digest(root, "c.md");
    await memo.digest(root, "a.md");
    expect(memo.stats()).toMatchObject({ hashed: 4, hits: 1 });
  });

  it("refuses a maxEntries that is not a whole number", () => {
    expect(() => digestMemo({ maxEntries: -1 })).toThrow(/Invalid maxEntries/);
    expect(() => digestMemo({ maxEntries: 1.5 })).toThrow(/Invalid maxEntries/);
  });
});
