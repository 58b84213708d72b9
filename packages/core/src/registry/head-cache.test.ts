import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import {
  appendFile,
  chmod,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  symlink,
  utimes,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { installBuilt } from "@skill/test-utils";
import { afterAll, describe, expect, it } from "vitest";
import { SkillError } from "../spec/errors.js";
import type { LogFields, Logger } from "../spec/logging.js";
import type { FileKey, SkillHead } from "../spec/skill-source.js";
import { fileHeadCache } from "./head-cache.js";

const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "skill-core-head-cache-"));
  dirs.push(dir);
  return dir;
}
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/** Heads are stored well after their files last changed, unless a test says otherwise. */
const NOW = 1_700_000_000_000;
const clock = () => NOW;

function key(path: string, over: Partial<FileKey> = {}): FileKey {
  return { path, dev: 2049, ino: 123456, size: 321, mtimeMs: NOW - 60_000.25, ...over };
}

/** A head as the service stores it: the contract's fields plus whatever else it keeps. */
type StoredHead = SkillHead & Record<string, unknown>;

function head(name: string, extra: Record<string, unknown> = {}): StoredHead {
  return {
    frontmatter: { name, description: `The ${name} skill`, metadata: { version: "1.0" } },
    digest: `sha256:${"ab".repeat(32)}`,
    size: 321,
    ...extra,
  };
}

interface Logged {
  readonly level: "warn" | "debug";
  readonly message: string;
  readonly fields: LogFields | undefined;
}
function memoryLogger(): Logger & { readonly lines: Logged[] } {
  const lines: Logged[] = [];
  return {
    lines,
    warn: (message, fields) => lines.push({ level: "warn", message, fields }),
    debug: (message, fields) => lines.push({ level: "debug", message, fields }),
  };
}

const dist = fileURLToPath(new URL("../../dist/index.js", import.meta.url));

/** An entry as versions 1 and 2 of the file hold it, and as records carry it. */
interface StoredEntry {
  readonly dev: number;
  readonly ino: number;
  readonly size: number;
  readonly mtimeMs: number;
  readonly ctimeMs?: number;
  readonly storedAt: number;
  readonly head: StoredHead;
}

/**
 * The entries of a version 4 document (its first line), path → entry, in the file's order,
 * read from its columns as the format's description says: written by hand here, so that a test
 * checks the format, not the code that reads it.
 */
function entriesOf(document: string): Map<string, StoredEntry> {
  const doc = JSON.parse(document.split("\n")[0] as string);
  expect(doc.version).toBe(4);
  const out = new Map<string, StoredEntry>();
  doc.paths.forEach((path: string, i: number) => {
    const [dev, ino, size, mtimeMs, ctimeMs, storedAt, shared] = doc.keys.slice(i * 7, i * 7 + 7);
    const head = {
      frontmatter: doc.frontmatter[i],
      ...doc.shared[Math.floor(shared / 2)],
      ...(shared % 2 === 1 ? { size } : {}),
    };
    out.set(path, { dev, ino, size, mtimeMs, ...(ctimeMs === -1 ? {} : { ctimeMs }), storedAt, head });
  });
  return out;
}

/** A document of version 1 or 2 (`{ version, writtenAt, entries }`) holding `entries`. */
function oldDocument(version: 1 | 2, entries: Map<string, StoredEntry> | Record<string, unknown>): string {
  const stored = entries instanceof Map ? Object.fromEntries(entries) : entries;
  return JSON.stringify({ version, writtenAt: NOW, entries: stored });
}

describe("fileHeadCache", () => {
  it("keeps heads across instances, as two processes would see them", async () => {
    const dir = await tempDir();
    const file = join(dir, "nested", "folders", "heads.json");
    const first = fileHeadCache(file, { now: clock });
    const stored = head("pdf", {
      diagnostics: [{ code: "unknown-field:version", severity: "warning", message: "m", line: 4 }],
      rules: "lenient=1;nameFallback=none",
      dropped: undefined,
    });
    first.set(key("/s/pdf/SKILL.md"), stored);
    first.set(key("/s/csv/SKILL.md", { ino: 7 }), head("csv"));
    expect(first.get(key("/s/pdf/SKILL.md"))?.frontmatter.name).toBe("pdf");
    await first.flush();

    const second = fileHeadCache(file, { now: clock });
    const { dropped: _, ...expected } = stored;
    expect(second.get(key("/s/pdf/SKILL.md"))).toEqual(expected);
    expect(second.get(key("/s/csv/SKILL.md", { ino: 7 }))).toEqual(head("csv"));
    expect(second.get(key("/s/other/SKILL.md"))).toBeUndefined();

    const text = await readFile(file, "utf8");
    const doc = JSON.parse(text);
    expect(doc.version).toBe(4);
    expect(doc.writtenAt).toBe(NOW);
    const entries = entriesOf(text);
    // Least recently used first: the get above made pdf the most recent.
    expect([...entries.keys()]).toEqual(["/s/csv/SKILL.md", "/s/pdf/SKILL.md"]);
    expect(entries.get("/s/pdf/SKILL.md")?.head).toEqual(expected);
    expect(entries.get("/s/csv/SKILL.md")).toEqual({
      dev: 2049,
      ino: 7,
      size: 321,
      mtimeMs: NOW - 60_000.25,
      storedAt: NOW,
      head: head("csv"),
    });
  });

  it("reads back text of every script, in paths and heads, from the document and from records", async () => {
    const file = join(await tempDir(), "heads.json");
    const first = fileHeadCache(file, { now: clock });
    const texts = ["café crème", "日本語のスキル", "emoji 😀 and 𝐀", "Ελληνικά", "line\u2028separator"];
    texts.forEach((text, i) => {
      first.set(key(`/s/${text}/SKILL.md`, { ino: i }), head(text, { note: text }));
    });
    await first.flush();
    // One more, appended as a record after the document.
    const second = fileHeadCache(file, { now: clock });
    second.set(key("/s/ünïcödé/SKILL.md", { ino: 99 }), head("ünïcödé"));
    await second.flush();
    expect((await readFile(file, "utf8")).split("\n").filter(Boolean)).toHaveLength(2);

    const third = fileHeadCache(file, { now: clock });
    texts.forEach((text, i) => {
      expect(third.get(key(`/s/${text}/SKILL.md`, { ino: i }))).toEqual(head(text, { note: text }));
    });
    expect(third.get(key("/s/ünïcödé/SKILL.md", { ino: 99 }))).toEqual(head("ünïcödé"));
  });

  it("stores fields that heads share once, and each head as it was given", async () => {
    const file = join(await tempDir(), "heads.json");
    const cache = fileHeadCache(file, { now: clock });
    const rules = { rules: "[2,true,null,1048576]" };
    const heads: [FileKey, StoredHead][] = [
      [key("/s/a/SKILL.md"), head("a", rules)],
      [key("/s/b/SKILL.md", { size: 99 }), { ...head("b", rules), size: 99 }],
      // A size that is not the file's, and no size at all, come back as they were.
      [key("/s/c/SKILL.md"), { ...head("c", rules), size: 7 }],
      [key("/s/d/SKILL.md"), { frontmatter: { name: "d" }, ...rules }],
      [key("/s/e/SKILL.md"), head("e", { ...rules, diagnostics: [{ code: "x", severity: "warning" }] })],
    ];
    for (const [k, h] of heads) cache.set(k, h);
    await cache.flush();
    const text = await readFile(file, "utf8");
    // Four sets of shared fields (a and b hold the same), each written once.
    expect(text.split(rules.rules)).toHaveLength(4 + 1);
    expect(JSON.parse(text).shared).toHaveLength(4);
    const again = fileHeadCache(file, { now: clock });
    for (const [k, h] of heads) expect(again.get(k), k.path).toEqual(h);
    expect(again.get(key("/s/b/SKILL.md", { size: 99 }))?.size).toBe(99);
    expect(Object.isFrozen((again.get(key("/s/e/SKILL.md")) as StoredHead | undefined)?.diagnostics)).toBe(
      true,
    );
    expect(entriesOf(text).get("/s/c/SKILL.md")?.head).toEqual(heads[2]?.[1]);
  });

  it("writes a version 4 file from an older one, with every entry as it was", async () => {
    const file = join(await tempDir(), "heads.json");
    const entries = new Map<string, StoredEntry>();
    for (const name of ["a", "b", "c"]) {
      const { path: _, ...stat } = key(`/s/${name}/SKILL.md`, { ino: name.charCodeAt(0) });
      entries.set(`/s/${name}/SKILL.md`, { ...stat, storedAt: NOW, head: head(name, { rules: "r" }) });
    }
    await writeFile(file, `${oldDocument(2, entries)}\n`);
    const cache = fileHeadCache(file, { now: clock, maxEntries: 3 });
    cache.set(key("/s/d/SKILL.md"), head("d", { rules: "r" })); // evicts a
    cache.delete?.("/s/b/SKILL.md");
    // Past the share of records: written whole, in version 4.
    await cache.flush();
    const text = await readFile(file, "utf8");
    expect(text.split("\n")).toHaveLength(2);
    const written = entriesOf(text);
    expect([...written.keys()]).toEqual(["/s/c/SKILL.md", "/s/d/SKILL.md"]);
    expect(written.get("/s/c/SKILL.md")).toEqual(entries.get("/s/c/SKILL.md"));

    // Read back (entries from the columns) and changed again: both kinds are written alike.
    const next = fileHeadCache(file, { now: clock });
    next.set(key("/s/e/SKILL.md"), head("e", { rules: "r" }));
    next.set(key("/s/f/SKILL.md"), head("f", { rules: "other" }));
    next.delete?.("/s/d/SKILL.md");
    await next.flush();
    const last = entriesOf(await readFile(file, "utf8"));
    expect([...last.keys()]).toEqual(["/s/c/SKILL.md", "/s/e/SKILL.md", "/s/f/SKILL.md"]);
    expect(last.get("/s/c/SKILL.md")).toEqual(entries.get("/s/c/SKILL.md"));
    expect(last.get("/s/f/SKILL.md")?.head).toEqual(head("f", { rules: "other" }));
    expect(JSON.parse(await readFile(file, "utf8")).shared).toHaveLength(2);
  });

  it("hits for a real file's stat and misses once the file changes", async () => {
    const dir = await tempDir();
    const skill = join(dir, "SKILL.md");
    await writeFile(skill, "---\nname: real\ndescription: d\n---\n");
    const old = new Date(Date.now() - 3_600_000);
    await utimes(skill, old, old);
    const keyOf = (path: string): FileKey => {
      const s = statSync(path);
      return { path, dev: s.dev, ino: s.ino, size: s.size, mtimeMs: s.mtimeMs };
    };
    const file = join(dir, "heads.json");
    const cache = fileHeadCache(file);
    cache.set(keyOf(skill), head("real"));
    await cache.flush();
    expect(fileHeadCache(file).get(keyOf(skill))?.frontmatter.name).toBe("real");
    await writeFile(skill, "---\nname: real\ndescription: changed\n---\n");
    await utimes(skill, old, new Date(old.getTime() + 1_000));
    expect(fileHeadCache(file).get(keyOf(skill))).toBeUndefined();
  });

  it.each([
    ["path", { path: "/s/other/SKILL.md" }],
    ["dev", { dev: 2050 }],
    ["ino", { ino: 123457 }],
    ["size", { size: 322 }],
    ["mtimeMs", { mtimeMs: NOW - 60_000.5 }],
  ] as const)("misses when %s differs", async (_field, over) => {
    const file = join(await tempDir(), "heads.json");
    const cache = fileHeadCache(file, { now: clock });
    cache.set(key("/s/pdf/SKILL.md"), head("pdf"));
    expect(cache.get(key("/s/pdf/SKILL.md"))).toBeDefined();
    expect(cache.get(key("/s/pdf/SKILL.md", over))).toBeUndefined();
    await cache.flush();
    const reloaded = fileHeadCache(file, { now: clock });
    expect(reloaded.get(key("/s/pdf/SKILL.md", over))).toBeUndefined();
    expect(reloaded.get(key("/s/pdf/SKILL.md"))).toBeDefined();
  });

  it("misses a racily clean file: modified within 2 s of (or after) the moment its head was stored", async () => {
    const file = join(await tempDir(), "heads.json");
    const cache = fileHeadCache(file, { now: clock });
    const cases = {
      "/s/just-clean/SKILL.md": NOW - 2_001,
      "/s/edge/SKILL.md": NOW - 2_000,
      "/s/racy/SKILL.md": NOW - 500,
      "/s/same/SKILL.md": NOW,
      "/s/future/SKILL.md": NOW + 10_000,
    };
    for (const [path, mtimeMs] of Object.entries(cases)) cache.set(key(path, { mtimeMs }), head("x"));
    const hits = (c: typeof cache) =>
      Object.entries(cases)
        .filter(([path, mtimeMs]) => c.get(key(path, { mtimeMs })) !== undefined)
        .map(([path]) => path);
    expect(hits(cache)).toEqual(["/s/just-clean/SKILL.md"]);
    await cache.flush();
    // The rule holds after a reload however late it happens: it compares with when each head was stored.
    expect(hits(fileHeadCache(file, { now: () => NOW + 86_400_000 }))).toEqual(["/s/just-clean/SKILL.md"]);

    // Stored again later (the service re-read the file), the same file state is trusted.
    const later = fileHeadCache(file, { now: () => NOW + 5_000 });
    later.set(key("/s/racy/SKILL.md", { mtimeMs: NOW - 500 }), head("x"));
    expect(later.get(key("/s/racy/SKILL.md", { mtimeMs: NOW - 500 }))).toBeDefined();
  });

  it("returns frozen JSON data that no caller can change", async () => {
    const file = join(await tempDir(), "heads.json");
    const cache = fileHeadCache(file, { now: clock });
    const given = {
      frontmatter: { name: "pdf", description: "d", when: new Date(Date.UTC(2024, 0, 1)), tags: ["a"] },
    } as SkillHead;
    cache.set(key("/s/pdf/SKILL.md"), given);
    (given.frontmatter.tags as string[]).push("mutated after set");
    const got = cache.get(key("/s/pdf/SKILL.md"));
    expect(got).toEqual({
      frontmatter: { name: "pdf", description: "d", when: "2024-01-01T00:00:00.000Z", tags: ["a"] },
    });
    expect(Object.isFrozen(got)).toBe(true);
    expect(Object.isFrozen(got?.frontmatter.tags)).toBe(true);
    expect(() => ((got as SkillHead).frontmatter.tags as string[]).push("x")).toThrow(TypeError);
  });

  it("ignores invalid keys and heads instead of storing them", async () => {
    const file = join(await tempDir(), "heads.json");
    const cache = fileHeadCache(file, { now: clock });
    cache.set(key("/s/a/SKILL.md", { size: Number.NaN }), head("a"));
    cache.set(key(""), head("a"));
    cache.set(key("/s/b/SKILL.md"), { frontmatter: ["not", "a", "mapping"] } as unknown as SkillHead);
    cache.set(key("/s/c/SKILL.md"), { digest: "sha256:00" } as unknown as SkillHead);
    expect(cache.get(key("/s/a/SKILL.md", { size: Number.NaN }))).toBeUndefined();
    expect(cache.get(key("/s/b/SKILL.md"))).toBeUndefined();
    expect(cache.get(key("/s/c/SKILL.md"))).toBeUndefined();
    await cache.flush();
    expect(existsSync(file)).toBe(false);
  });

  it("delete drops an entry, also from the file", async () => {
    const file = join(await tempDir(), "heads.json");
    const cache = fileHeadCache(file, { now: clock });
    cache.set(key("/s/a/SKILL.md"), head("a"));
    cache.set(key("/s/b/SKILL.md"), head("b"));
    await cache.flush();
    const second = fileHeadCache(file, { now: clock });
    second.delete?.("/s/a/SKILL.md");
    expect(second.get(key("/s/a/SKILL.md"))).toBeUndefined();
    await second.flush();
    expect([...entriesOf(await readFile(file, "utf8")).keys()]).toEqual(["/s/b/SKILL.md"]);
  });

  it("has tells whether a path is held in any state: in memory, from the file, until deleted", async () => {
    const file = join(await tempDir(), "heads.json");
    const cache = fileHeadCache(file, { now: clock });
    expect(cache.has?.("/s/a/SKILL.md")).toBe(false);
    cache.set(key("/s/a/SKILL.md"), head("a"));
    expect(cache.has?.("/s/a/SKILL.md")).toBe(true);
    await cache.flush();
    const second = fileHeadCache(file, { now: clock });
    // Held, though this state of the file misses: the loader then stats it to look it up.
    expect(second.has?.("/s/a/SKILL.md")).toBe(true);
    expect(second.get(key("/s/a/SKILL.md", { size: 999 }))).toBeUndefined();
    expect(second.has?.("/s/b/SKILL.md")).toBe(false);
    second.delete?.("/s/a/SKILL.md");
    expect(second.has?.("/s/a/SKILL.md")).toBe(false);
  });

  it("writes nothing when nothing changed", async () => {
    const dir = await tempDir();
    const file = join(dir, "heads.json");
    await fileHeadCache(file, { now: clock }).flush();
    expect(existsSync(file)).toBe(false);
    const cache = fileHeadCache(file, { now: clock });
    cache.set(key("/s/a/SKILL.md"), head("a"));
    await cache.flush();
    const written = await readFile(file, "utf8");
    // A warm run: only hits (and a miss), then flush; the file must stay as it was.
    const warm = fileHeadCache(file, { now: () => NOW + 1 });
    expect(warm.get(key("/s/a/SKILL.md"))).toBeDefined();
    expect(warm.get(key("/s/b/SKILL.md"))).toBeUndefined();
    await rm(file);
    await warm.flush();
    expect(existsSync(file)).toBe(false);
    // Deleting what is not there is no change either.
    warm.delete?.("/s/none/SKILL.md");
    await warm.flush();
    expect(existsSync(file)).toBe(false);
    expect(written).toContain('"/s/a/SKILL.md"');
  });

  it("evicts the least recently used entries beyond maxEntries", async () => {
    const file = join(await tempDir(), "heads.json");
    const cache = fileHeadCache(file, { maxEntries: 3, now: clock });
    for (const name of ["a", "b", "c"]) cache.set(key(`/s/${name}/SKILL.md`), head(name));
    expect(cache.get(key("/s/a/SKILL.md"))).toBeDefined(); // a is now the most recently used
    cache.set(key("/s/d/SKILL.md"), head("d")); // evicts b
    expect(cache.get(key("/s/b/SKILL.md"))).toBeUndefined();
    for (const name of ["a", "c", "d"]) expect(cache.get(key(`/s/${name}/SKILL.md`))).toBeDefined();
    await cache.flush();
    expect([...entriesOf(await readFile(file, "utf8")).keys()]).toEqual([
      "/s/a/SKILL.md",
      "/s/c/SKILL.md",
      "/s/d/SKILL.md",
    ]);

    // A smaller limit on load keeps the most recently used.
    const small = fileHeadCache(file, { maxEntries: 2, now: clock });
    expect(small.get(key("/s/a/SKILL.md"))).toBeUndefined();
    expect(small.get(key("/s/c/SKILL.md"))).toBeDefined();
    expect(small.get(key("/s/d/SKILL.md"))).toBeDefined();

    const none = fileHeadCache(join(await tempDir(), "heads.json"), { maxEntries: 0, now: clock });
    none.set(key("/s/a/SKILL.md"), head("a"));
    expect(none.get(key("/s/a/SKILL.md"))).toBeUndefined();
  });

  it("writes entries least recently used first, also for paths that look like numbers", async () => {
    const file = join(await tempDir(), "heads.json");
    const cache = fileHeadCache(file, { now: clock });
    for (const path of ["/s/b", "/s/a", "/s/c"]) cache.set(key(path), head(path));
    expect(cache.get(key("/s/b"))).toBeDefined();
    await cache.flush();
    const order = (text: string, paths: string[]) =>
      [...paths].sort((x, y) => text.indexOf(JSON.stringify(x)) - text.indexOf(JSON.stringify(y)));
    expect(order(await readFile(file, "utf8"), ["/s/a", "/s/b", "/s/c"])).toEqual(["/s/a", "/s/c", "/s/b"]);
    // Paths that would be index-like keys of a JSON object keep the order of use too.
    for (const path of ["9", "/s/d", "10"]) cache.set(key(path), head(path));
    await cache.flush();
    const text = await readFile(file, "utf8");
    expect(order(text, ["/s/a", "/s/c", "/s/b", "9", "/s/d", "10"])).toEqual([
      "/s/a",
      "/s/c",
      "/s/b",
      "9",
      "/s/d",
      "10",
    ]);
    expect([...entriesOf(text).keys()]).toEqual(["/s/a", "/s/c", "/s/b", "9", "/s/d", "10"]);
  });

  it("refuses an invalid maxEntries or file with INVALID_FIELD", () => {
    for (const maxEntries of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      let error: unknown;
      try {
        fileHeadCache("/tmp/x.json", { maxEntries });
      } catch (e) {
        error = e;
      }
      expect(SkillError.isInstance(error) && error.code).toBe("INVALID_FIELD");
      expect((error as Error).message).toContain("maxEntries");
    }
    expect(() => fileHeadCache("")).toThrow(/head cache file/);
  });
});

describe("fileHeadCache with a bad cache file", () => {
  async function cacheWith(content: string) {
    const file = join(await tempDir(), "heads.json");
    await writeFile(file, content);
    const logger = memoryLogger();
    return { file, logger, cache: fileHeadCache(file, { now: clock, logger }) };
  }

  async function validFile(): Promise<string> {
    const file = join(await tempDir(), "heads.json");
    const cache = fileHeadCache(file, { now: clock });
    for (const name of ["a", "b", "c"]) cache.set(key(`/s/${name}/SKILL.md`), head(name));
    await cache.flush();
    return readFile(file, "utf8");
  }

  it.each([
    ["garbage", "\u0000\u00ff not json at all"],
    ["an empty file", ""],
    ["a list", "[]"],
    ["a mapping without entries", '{"version":1,"writtenAt":1}'],
    ["entries as a list", '{"version":1,"writtenAt":1,"entries":[]}'],
    ["no writtenAt", '{"version":1,"entries":{}}'],
    ["null", "null"],
  ])("starts empty from %s, with a warning, and repairs the file on flush", async (_kind, content) => {
    const { file, logger, cache } = await cacheWith(content);
    expect(cache.get(key("/s/a/SKILL.md"))).toBeUndefined();
    expect(logger.lines.filter((l) => l.level === "warn").map((l) => l.fields?.code)).toEqual([
      "head-cache-corrupt",
    ]);
    expect(logger.lines[0]?.message).toContain(file);
    cache.set(key("/s/a/SKILL.md"), head("a"));
    await cache.flush();
    expect(fileHeadCache(file, { now: clock }).get(key("/s/a/SKILL.md"))).toEqual(head("a"));
  });

  it("starts empty from a truncated file", async () => {
    const full = await validFile();
    for (const length of [1, Math.floor(full.length / 2), full.length - 3]) {
      const { cache, logger } = await cacheWith(full.slice(0, length));
      expect(cache.get(key("/s/a/SKILL.md"))).toBeUndefined();
      expect(logger.lines.map((l) => l.fields?.code)).toContain("head-cache-corrupt");
    }
    // The untruncated file does load, so the misses above come from the truncation.
    expect((await cacheWith(full)).cache.get(key("/s/a/SKILL.md"))).toBeDefined();
  });

  it.each([3, 5])("ignores another version (%i) quietly", async (version) => {
    // Version 3 held no change times: none of its entries could match a key that has one.
    const doc = JSON.parse(await validFile());
    const { cache, logger } = await cacheWith(JSON.stringify({ ...doc, version }));
    expect(cache.get(key("/s/a/SKILL.md"))).toBeUndefined();
    expect(logger.lines.filter((l) => l.level === "warn")).toEqual([]);
  });

  it("keys on the change time too: a key with another, or none where one was stored, misses", async () => {
    const file = join(await tempDir(), "heads.json");
    const cache = fileHeadCache(file, { now: clock });
    cache.set(key("/s/a/SKILL.md", { ctimeMs: NOW - 50_000 }), head("a"));
    cache.set(key("/s/b/SKILL.md"), head("b"));
    await cache.flush();
    const second = fileHeadCache(file, { now: clock });
    expect(second.get(key("/s/a/SKILL.md", { ctimeMs: NOW - 50_000 }))).toEqual(head("a"));
    expect(second.get(key("/s/a/SKILL.md", { ctimeMs: NOW - 40_000 }))).toBeUndefined();
    expect(second.get(key("/s/a/SKILL.md"))).toBeUndefined();
    expect(second.get(key("/s/b/SKILL.md"))).toEqual(head("b"));
    expect(second.get(key("/s/b/SKILL.md", { ctimeMs: NOW - 50_000 }))).toBeUndefined();
    // Kept by a record too.
    second.set(key("/s/c/SKILL.md", { ctimeMs: NOW - 30_000 }), head("c"));
    await second.flush();
    const third = fileHeadCache(file, { now: clock });
    expect(third.get(key("/s/c/SKILL.md", { ctimeMs: NOW - 30_000 }))).toEqual(head("c"));
    expect(third.get(key("/s/c/SKILL.md", { ctimeMs: NOW - 20_000 }))).toBeUndefined();
  });

  it("drops each malformed entry of a version 2 file alone and keeps the good ones", async () => {
    const entries = entriesOf(await validFile());
    const good = entries.get("/s/a/SKILL.md") as StoredEntry;
    const bad: Record<string, unknown> = {
      "/s/dev-string/SKILL.md": { ...good, dev: "2049" },
      "/s/ino-missing/SKILL.md": { ...good, ino: undefined },
      "/s/size-negative/SKILL.md": { ...good, size: -1 },
      "/s/mtime-null/SKILL.md": { ...good, mtimeMs: null },
      "/s/stored-missing/SKILL.md": { ...good, storedAt: undefined },
      "/s/head-missing/SKILL.md": { ...good, head: undefined },
      "/s/head-list/SKILL.md": { ...good, head: [] },
      "/s/frontmatter-list/SKILL.md": { ...good, head: { frontmatter: [] } },
      "/s/frontmatter-null/SKILL.md": { ...good, head: { frontmatter: null } },
      "/s/digest-number/SKILL.md": { ...good, head: { ...good.head, digest: 5 } },
      "/s/head-size-text/SKILL.md": { ...good, head: { ...good.head, size: "321" } },
      "/s/entry-string/SKILL.md": "nope",
      "/s/entry-null/SKILL.md": null,
      "": good,
    };
    const { cache, logger } = await cacheWith(oldDocument(2, { ...bad, ...Object.fromEntries(entries) }));
    for (const path of Object.keys(bad)) expect(cache.get(key(path)), path).toBeUndefined();
    for (const name of ["a", "b", "c"]) expect(cache.get(key(`/s/${name}/SKILL.md`))).toEqual(head(name));
    expect(logger.lines.filter((l) => l.level === "warn")).toEqual([]);
    expect(logger.lines.find((l) => l.fields?.code === "head-cache-corrupt")?.message).toContain(
      `dropped ${Object.keys(bad).length} malformed entries`,
    );
  });

  it("drops each malformed entry of a version 4 file alone and keeps the good ones", async () => {
    const doc = JSON.parse(await validFile());
    const good = doc.keys.slice(0, 7);
    const bad: [string, unknown[], unknown][] = [
      ["/s/dev-string/SKILL.md", ["2049", ...good.slice(1)], {}],
      ["/s/ino-null/SKILL.md", [good[0], null, ...good.slice(2)], {}],
      ["/s/size-negative/SKILL.md", [...good.slice(0, 2), -1, ...good.slice(3)], {}],
      ["/s/mtime-text/SKILL.md", [...good.slice(0, 3), "1", ...good.slice(4)], {}],
      ["/s/ctime-negative/SKILL.md", [...good.slice(0, 4), -5, ...good.slice(5)], {}],
      ["/s/ctime-null/SKILL.md", [...good.slice(0, 4), null, ...good.slice(5)], {}],
      ["/s/stored-null/SKILL.md", [...good.slice(0, 5), null, good[6]], {}],
      ["/s/shared-beyond/SKILL.md", [...good.slice(0, 6), 2 * doc.shared.length], {}],
      ["/s/shared-fraction/SKILL.md", [...good.slice(0, 6), 0.5], {}],
      ["/s/shared-bad/SKILL.md", [...good.slice(0, 6), 2 * doc.shared.length + 2], {}],
      ["/s/frontmatter-list/SKILL.md", good, []],
      ["/s/frontmatter-null/SKILL.md", good, null],
      ["", good, {}],
    ];
    const shared = [...doc.shared, { frontmatter: {} }, { digest: 5 }];
    const { cache, logger } = await cacheWith(
      JSON.stringify({
        ...doc,
        paths: [...bad.map(([path]) => path), ...doc.paths],
        keys: [...bad.flatMap(([, keys]) => keys), ...doc.keys],
        shared,
        frontmatter: [...bad.map(([, , fields]) => fields), ...doc.frontmatter],
      }),
    );
    for (const [path] of bad) expect(cache.get(key(path)), path).toBeUndefined();
    for (const name of ["a", "b", "c"]) expect(cache.get(key(`/s/${name}/SKILL.md`))).toEqual(head(name));
    expect(logger.lines.filter((l) => l.level === "warn")).toEqual([]);
    expect(logger.lines.find((l) => l.fields?.code === "head-cache-corrupt")?.message).toContain(
      `dropped ${bad.length} malformed entries`,
    );
  });

  it.each([
    [
      "columns of different lengths",
      (doc: Record<string, unknown[]>) => ({ ...doc, keys: doc.keys?.slice(1) }),
    ],
    ["frontmatter missing", (doc: Record<string, unknown[]>) => ({ ...doc, frontmatter: undefined })],
    ["paths as an object", (doc: Record<string, unknown[]>) => ({ ...doc, paths: {} })],
    ["no writtenAt", (doc: Record<string, unknown[]>) => ({ ...doc, writtenAt: undefined })],
  ])("starts empty from a version 4 document with %s, with a warning", async (_kind, damage) => {
    const doc = JSON.parse(await validFile());
    const { cache, logger } = await cacheWith(JSON.stringify(damage(doc)));
    expect(cache.get(key("/s/a/SKILL.md"))).toBeUndefined();
    expect(logger.lines.filter((l) => l.level === "warn").map((l) => l.fields?.code)).toEqual([
      "head-cache-corrupt",
    ]);
  });

  it("serves, then drops when it writes the file anew, heads nested deeper than JSON.stringify recurses", async () => {
    const doc = JSON.parse(await validFile());
    const deep = (depth: number) => `${'{"x":'.repeat(depth)}1${"}".repeat(depth)}`;
    const a = doc.keys.slice(0, 7);
    // One entry whose shared fields are that deep, one whose frontmatter is.
    const text = `{"version":4,"writtenAt":${NOW},"paths":${JSON.stringify([
      "/s/deep-shared/SKILL.md",
      "/s/deep-fields/SKILL.md",
      ...doc.paths,
    ])},"keys":${JSON.stringify([
      ...a.slice(0, 6),
      2 * doc.shared.length,
      ...a,
      ...doc.keys,
    ])},"shared":[${doc.shared.map((x: unknown) => JSON.stringify(x)).join(",")},{"deep":${deep(100_000)}}],"frontmatter":[{"name":"s"},{"name":"f","deep":${deep(100_000)}},${doc.frontmatter
      .map((x: unknown) => JSON.stringify(x))
      .join(",")}]}\n`;
    const { file, cache, logger } = await cacheWith(text);
    expect(cache.get(key("/s/deep-shared/SKILL.md"))?.frontmatter.name).toBe("s");
    expect(cache.get(key("/s/deep-fields/SKILL.md"))?.frontmatter.name).toBe("f");
    // A change past a quarter of the entries writes the file anew: the deep heads cannot be written.
    cache.set(key("/s/new/SKILL.md"), head("new"));
    cache.set(key("/s/newer/SKILL.md"), head("newer"));
    await cache.flush();
    expect(logger.lines.filter((l) => l.level === "warn")).toEqual([]);
    expect(
      logger.lines.filter((l) => l.fields?.code === "head-cache-invalid-head").map((l) => l.fields?.path),
    ).toEqual(["/s/deep-shared/SKILL.md", "/s/deep-fields/SKILL.md"]);
    const written = entriesOf(await readFile(file, "utf8"));
    expect([...written.keys()].sort()).toEqual(
      ["/s/a/SKILL.md", "/s/b/SKILL.md", "/s/c/SKILL.md", "/s/new/SKILL.md", "/s/newer/SKILL.md"].sort(),
    );
  });

  it("never blocks on a FIFO and never throws on a folder at the cache path", {
    tags: ["slow"],
  }, async () => {
    const dir = await tempDir();
    const fifo = join(dir, "fifo.json");
    const made = spawnSync("mkfifo", [fifo]);
    if (made.status === 0) {
      const logger = memoryLogger();
      expect(fileHeadCache(fifo, { logger }).get(key("/s/a/SKILL.md"))).toBeUndefined();
      expect(logger.lines.map((l) => l.fields?.code)).toEqual(["head-cache-read-failed"]);
    }
    const folder = join(dir, "folder.json");
    await mkdir(folder);
    const logger = memoryLogger();
    const cache = fileHeadCache(folder, { logger, now: clock });
    expect(cache.get(key("/s/a/SKILL.md"))).toBeUndefined();
    expect(logger.lines.map((l) => l.fields?.code)).toEqual(["head-cache-read-failed"]);
  });
});

describe("fileHeadCache appends a few changes as records", () => {
  /** A cache file of `n` entries /s/0 … /s/n-1, written whole. */
  async function filled(n: number): Promise<string> {
    const file = join(await tempDir(), "heads.json");
    const cache = fileHeadCache(file, { now: clock });
    for (let i = 0; i < n; i++) cache.set(key(`/s/${i}/SKILL.md`, { ino: i }), head(`s${i}`));
    await cache.flush();
    return file;
  }
  const lines = async (file: string) => (await readFile(file, "utf8")).split("\n").slice(0, -1);

  it("appends one record for one changed entry, leaving the document as it was", async () => {
    const file = await filled(100);
    const [document] = await lines(file);
    const warm = fileHeadCache(file, { now: clock });
    expect(warm.get(key("/s/5/SKILL.md", { ino: 5 }))).toBeDefined();
    warm.set(key("/s/5/SKILL.md", { ino: 5, size: 999 }), head("changed"));
    await warm.flush();
    const after = await lines(file);
    expect(after).toHaveLength(2);
    expect(after[0]).toBe(document);
    expect(JSON.parse(after[1] as string)).toEqual({
      path: "/s/5/SKILL.md",
      entry: { dev: 2049, ino: 5, size: 999, mtimeMs: NOW - 60_000.25, storedAt: NOW, head: head("changed") },
    });
    // The next process sees the record, not the document's entry.
    const next = fileHeadCache(file, { now: clock });
    expect(next.get(key("/s/5/SKILL.md", { ino: 5 }))).toBeUndefined();
    expect(next.get(key("/s/5/SKILL.md", { ino: 5, size: 999 }))?.frontmatter.name).toBe("changed");
    expect(next.get(key("/s/6/SKILL.md", { ino: 6 }))?.frontmatter.name).toBe("s6");
  });

  it("records a deletion and an eviction, and applies records in order", async () => {
    const file = await filled(100);
    const cache = fileHeadCache(file, { maxEntries: 100, now: clock });
    cache.delete?.("/s/1/SKILL.md");
    cache.set(key("/s/new/SKILL.md"), head("new"));
    cache.set(key("/s/newer/SKILL.md"), head("newer")); // evicts /s/0, the least recently used
    await cache.flush();
    expect((await lines(file)).slice(1).map((l) => JSON.parse(l).path)).toEqual([
      "/s/1/SKILL.md",
      "/s/new/SKILL.md",
      "/s/newer/SKILL.md",
      "/s/0/SKILL.md",
    ]);
    const next = fileHeadCache(file, { now: clock });
    expect(next.get(key("/s/0/SKILL.md", { ino: 0 }))).toBeUndefined();
    expect(next.get(key("/s/1/SKILL.md", { ino: 1 }))).toBeUndefined();
    expect(next.get(key("/s/2/SKILL.md", { ino: 2 }))).toBeDefined();
    expect(next.get(key("/s/newer/SKILL.md"))?.frontmatter.name).toBe("newer");
    // A path stored again after its deletion is there.
    next.set(key("/s/1/SKILL.md", { ino: 1 }), head("back"));
    await next.flush();
    expect(fileHeadCache(file, { now: clock }).get(key("/s/1/SKILL.md", { ino: 1 }))?.frontmatter.name).toBe(
      "back",
    );
  });

  it("writes the file anew once records would pass a quarter of the entries", async () => {
    const file = await filled(40);
    for (let round = 0; round < 4; round++) {
      const cache = fileHeadCache(file, { now: clock });
      for (let i = 0; i < 3; i++)
        cache.set(key(`/s/${round * 3 + i}/SKILL.md`, { ino: 1000 + round }), head("x"));
      await cache.flush();
      // 3, 6 and 9 records fit in a quarter of 40; 12 do not: the fourth flush compacts.
      expect(await lines(file)).toHaveLength(round < 3 ? 1 + (round + 1) * 3 : 1);
    }
    const entries = entriesOf((await lines(file))[0] as string);
    expect(entries.size).toBe(40);
    expect(entries.get("/s/0/SKILL.md")?.ino).toBe(1000);
    // A small cache is always written whole.
    const small = await filled(3);
    const cache = fileHeadCache(small, { now: clock });
    cache.set(key("/s/0/SKILL.md", { ino: 7 }), head("x"));
    await cache.flush();
    expect(await lines(small)).toHaveLength(1);
  });

  it("drops a record cut short by a crash alone, and compacts it away", async () => {
    const file = await filled(100);
    const cache = fileHeadCache(file, { now: clock });
    cache.set(key("/s/3/SKILL.md", { ino: 3, size: 1 }), head("three"));
    await cache.flush();
    const whole = await readFile(file, "utf8");
    // A record another process was writing when it died, and garbage lines.
    await appendFile(
      file,
      '{"path":"/s/4/SKILL.md","entry":{"dev":2049,"ino":4,"si\n[]\n{"path":7}\n{"path":"/s/9/SKILL.md","entry":{"dev":1}}\n',
    );
    const logger = memoryLogger();
    const next = fileHeadCache(file, { now: clock, logger });
    expect(next.get(key("/s/3/SKILL.md", { ino: 3, size: 1 }))?.frontmatter.name).toBe("three");
    expect(next.get(key("/s/4/SKILL.md", { ino: 4 }))?.frontmatter.name).toBe("s4");
    // A malformed record for a path drops that path's entry: its last word is unknown.
    expect(next.get(key("/s/9/SKILL.md", { ino: 9 }))).toBeUndefined();
    expect(logger.lines.map((l) => [l.level, l.fields?.code, l.message.includes("4 malformed")])).toEqual([
      ["debug", "head-cache-corrupt", true],
    ]);
    expect(whole.split("\n")).toHaveLength(3);
    // A torn last record without its newline is dropped the same way.
    await writeFile(file, `${whole}{"path":"/s/5/SKILL.md","entry":{"dev":2049`);
    const torn = fileHeadCache(file, { now: clock });
    expect(torn.get(key("/s/5/SKILL.md", { ino: 5 }))?.frontmatter.name).toBe("s5");
    // Nothing is appended onto the torn line (that record would be lost with it): the next flush
    // writes the file whole, and what it stored is there for the next reader.
    torn.set(key("/s/6/SKILL.md", { ino: 6, size: 2 }), head("six"));
    await torn.flush();
    const rewritten = await readFile(file, "utf8");
    expect(rewritten.endsWith("\n")).toBe(true);
    expect(rewritten.split("\n")).toHaveLength(2);
    expect(
      fileHeadCache(file, { now: clock }).get(key("/s/6/SKILL.md", { ino: 6, size: 2 }))?.frontmatter.name,
    ).toBe("six");
  });

  it("never appends through a symlink or to anything but a regular file", async () => {
    const file = await filled(100);
    const dir = join(file, "..");
    const target = join(dir, "elsewhere.json");
    const original = await readFile(file, "utf8");
    await writeFile(target, original);
    await rm(file);
    await symlink(target, file);
    const cache = fileHeadCache(file, { now: clock });
    expect(cache.get(key("/s/1/SKILL.md", { ino: 1 }))).toBeDefined(); // reading follows it
    cache.set(key("/s/1/SKILL.md", { ino: 1, size: 5 }), head("one"));
    await cache.flush();
    // The symlink was replaced by a whole file; its target is untouched.
    expect(await readFile(target, "utf8")).toBe(original);
    expect(statSync(file).isFile()).toBe(true);
    expect(await lines(file)).toHaveLength(1);
    expect(fileHeadCache(file, { now: clock }).get(key("/s/1/SKILL.md", { ino: 1, size: 5 }))).toBeDefined();
  });

  it.each([1, 2] as const)("reads a version %i file and appends to it", async (version) => {
    const file = await filled(100);
    const [document] = await lines(file);
    await writeFile(file, `${oldDocument(version, entriesOf(document as string))}\n`);
    const cache = fileHeadCache(file, { now: clock });
    expect(cache.get(key("/s/1/SKILL.md", { ino: 1 }))).toBeDefined();
    cache.set(key("/s/1/SKILL.md", { ino: 1, size: 5 }), head("one"));
    await cache.flush();
    expect(await lines(file)).toHaveLength(2);
    expect(fileHeadCache(file, { now: clock }).get(key("/s/1/SKILL.md", { ino: 1, size: 5 }))).toBeDefined();
  });
});

describe("fileHeadCache writes", () => {
  it("leaves no temporary file behind, after a write or a failed one", async () => {
    const dir = await tempDir();
    const file = join(dir, "heads.json");
    const cache = fileHeadCache(file, { now: clock });
    cache.set(key("/s/a/SKILL.md"), head("a"));
    await Promise.all([cache.flush(), cache.flush()]);
    cache.set(key("/s/b/SKILL.md"), head("b"));
    await cache.flush();
    expect(await readdir(dir)).toEqual(["heads.json"]);

    // A non-empty folder at the cache path: the temporary file is written, the rename fails.
    const blocked = join(dir, "blocked");
    await mkdir(join(blocked, "heads.json", "inside"), { recursive: true });
    const logger = memoryLogger();
    const failing = fileHeadCache(join(blocked, "heads.json"), { now: clock, logger });
    failing.set(key("/s/a/SKILL.md"), head("a"));
    await expect(failing.flush()).resolves.toBeUndefined();
    expect(logger.lines.filter((l) => l.level === "warn").map((l) => l.fields?.code)).toEqual([
      "head-cache-read-failed",
      "head-cache-write-failed",
    ]);
    expect(await readdir(blocked)).toEqual(["heads.json"]);
  });

  it("swallows a write under a file (ENOTDIR), reports it and retries on the next flush", async () => {
    const dir = await tempDir();
    const parent = join(dir, "parent");
    await writeFile(parent, "a file, not a folder");
    const file = join(parent, "cache", "heads.json");
    const logger = memoryLogger();
    const cache = fileHeadCache(file, { now: clock, logger });
    cache.set(key("/s/a/SKILL.md"), head("a"));
    await expect(cache.flush()).resolves.toBeUndefined();
    const warned = logger.lines.filter((l) => l.level === "warn");
    expect(warned.map((l) => l.fields)).toEqual([
      { code: "head-cache-write-failed", path: file, errno: expect.stringMatching(/^(ENOTDIR|EEXIST)$/) },
    ]);
    expect(warned[0]?.message).toContain(file);
    expect(cache.get(key("/s/a/SKILL.md"))).toBeDefined();

    await rm(parent);
    await cache.flush();
    expect(fileHeadCache(file, { now: clock }).get(key("/s/a/SKILL.md"))).toEqual(head("a"));
  });

  it("swallows EACCES from a folder the process may not write (run as uid 65534)", {
    tags: ["slow"],
  }, async (ctx) => {
    expect(existsSync(dist), "build @skill/core first (the child loads dist)").toBe(true);
    const base = await tempDir();
    await chmod(base, 0o755);
    const locked = join(base, "locked");
    await mkdir(locked, { mode: 0o755 }); // owned by root: not writable for uid 65534
    const seeded = fileHeadCache(join(locked, "heads.json"), { now: clock });
    seeded.set(key("/s/a/SKILL.md"), head("a"));
    await seeded.flush();
    await chmod(join(locked, "heads.json"), 0o644);
    // The checkout may be closed to uid 65534 (a clone under a 0700 folder): it loads a copy.
    const copy = await installBuilt(fileURLToPath(new URL("../..", import.meta.url)), base);
    const script = `
      const { fileHeadCache } = await import(${JSON.stringify(copy)});
      const lines = [];
      const logger = { warn: (message, fields) => lines.push({ level: "warn", message, fields }), debug() {} };
      const key = (path) => (${JSON.stringify(key("/s/x/SKILL.md"))});
      const results = {};
      for (const name of ["heads.json", "new/heads.json"]) {
        const cache = fileHeadCache(${JSON.stringify(locked)} + "/" + name, { logger, now: () => ${NOW} });
        const hit = cache.get({ ...key(), path: "/s/a/SKILL.md" }) !== undefined;
        cache.set({ ...key(), path: "/s/b/SKILL.md" }, { frontmatter: { name: "b" } });
        await cache.flush();
        results[name] = { hit, stillServes: cache.get({ ...key(), path: "/s/b/SKILL.md" }) !== undefined };
      }
      console.log(JSON.stringify({ uid: process.getuid(), results, lines }));`;
    const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
      uid: 65534,
      gid: 65534,
      cwd: base,
      env: {},
      encoding: "utf8",
      timeout: 30_000,
    });
    if (process.getuid?.() !== 0) {
      ctx.skip("only root can run a child as uid 65534");
      return;
    }
    expect(child.stderr).toBe("");
    const out = JSON.parse(child.stdout);
    expect(out.uid).toBe(65534);
    expect(out.results).toEqual({
      "heads.json": { hit: true, stillServes: true },
      "new/heads.json": { hit: false, stillServes: true },
    });
    expect(out.lines.map((l: Logged) => [l.level, l.fields?.code, l.fields?.errno])).toEqual([
      ["warn", "head-cache-write-failed", "EACCES"],
      ["warn", "head-cache-write-failed", "EACCES"],
    ]);
    expect(await readdir(locked)).toEqual(["heads.json"]);
    expect([...entriesOf(readFileSync(join(locked, "heads.json"), "utf8")).keys()]).toEqual([
      "/s/a/SKILL.md",
    ]);
  });

  it("never shows a reader a half-written file while two processes flush it", {
    tags: ["slow"],
    timeout: 60_000,
  }, async () => {
    expect(existsSync(dist), "build @skill/core first (the child loads dist)").toBe(true);
    const dir = await tempDir();
    const file = join(dir, "heads.json");
    // Each writer flushes a ~1 MB file 30 times, changing one entry in between.
    const writer = (id: string) => `
      const { fileHeadCache } = await import(${JSON.stringify(pathToFileURL(dist).href)});
      const cache = fileHeadCache(${JSON.stringify(file)}, { now: () => ${NOW} });
      const description = "x".repeat(200);
      for (let round = 0; round < 30; round++) {
        for (let i = 0; i < 3000; i += round === 0 ? 1 : 1000) {
          cache.set({ path: "/s/${id}-" + i + "/SKILL.md", dev: 1, ino: i, size: round, mtimeMs: 1 },
            { frontmatter: { name: "${id}-" + i, description } });
        }
        await cache.flush();
      }`;
    const run = (id: string) =>
      new Promise<number | null>((resolvePromise, reject) => {
        const child = spawn(process.execPath, ["--input-type=module", "-e", writer(id)], {
          env: {},
          stdio: ["ignore", "ignore", "inherit"],
        });
        child.on("error", reject);
        child.on("exit", resolvePromise);
      });
    const writers = Promise.all([run("one"), run("two")]);
    let done = false;
    void writers.finally(() => {
      done = true;
    });
    let reads = 0;
    while (!done) {
      let text: string | undefined;
      try {
        text = await readFile(file, "utf8");
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      }
      if (text !== undefined) {
        // The document line is always whole; so is every appended record a reader sees end.
        const lines = text.split("\n").slice(0, -1);
        expect(lines.length, `read ${reads}: ${text.length} characters`).toBeGreaterThan(0);
        for (const line of lines) expect(() => JSON.parse(line), `read ${reads}`).not.toThrow();
        reads++;
      }
    }
    expect(await writers).toEqual([0, 0]);
    expect(reads).toBeGreaterThan(0);
    // The last rename wins whole (one writer's state, which may include what it loaded of the
    // other's), and the records appended since win for their paths.
    const reader = fileHeadCache(file, { now: clock });
    const held = (id: string) =>
      Array.from({ length: 3000 }, (_, i) => i).filter(
        (i) =>
          reader.get({ path: `/s/${id}-${i}/SKILL.md`, dev: 1, ino: i, size: 29, mtimeMs: 1 }) !== undefined,
      ).length;
    const last = [held("one"), held("two")];
    // Each writer's last flush changed entries 0, 1000 and 2000 to size 29, and those survive.
    expect(last.some((n) => n >= 3)).toBe(true);
    expect((await readdir(dir)).filter((f) => f !== "heads.json")).toEqual([]);
  });

  it("loads 10,000 entries quickly", async () => {
    const file = join(await tempDir(), "heads.json");
    const cache = fileHeadCache(file, { now: clock });
    for (let i = 0; i < 10_000; i++) {
      const stored: StoredHead = {
        frontmatter: {
          name: `skill-${i}`,
          description: "Extracts text and tables from PDF files, fills forms, merges documents. ".repeat(2),
          license: "MIT",
          metadata: { author: "someone", version: "1.2.3" },
        },
        digest: `sha256:${"0123456789abcdef".repeat(4)}`,
        size: 2048,
        diagnostics: [],
        rules: "lenient:true;nameFallback:none;rejectLongFields:false",
      };
      cache.set(key(`/home/user/.agents/skills/skill-${i}/SKILL.md`, { ino: i }), stored);
    }
    await cache.flush();
    const started = performance.now();
    const warm = fileHeadCache(file, { now: clock });
    expect(warm.get(key("/home/user/.agents/skills/skill-9999/SKILL.md", { ino: 9999 }))).toBeDefined();
    const elapsed = performance.now() - started;
    // A few tens of ms in practice; the bound only catches a pathological regression on a busy machine.
    expect(elapsed).toBeLessThan(1_000);
  });
});
