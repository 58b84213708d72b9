import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import type { SkillErrorCode } from "@skill/core";
import {
  digestOf,
  type Member,
  type Served,
  serve,
  skillBody,
  staticFiles,
  tar,
  tarGz,
  tarGzBomb,
  type ZipMember,
  zip,
  zipBomb,
} from "@skill/test-utils";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { tempDir, tree } from "../test/server.js";
import { SCHEMA_V0_2 } from "./manifest.js";
import { pull } from "./pull.js";

let root: string;
let cacheDir: string;
let cleanup: () => Promise<void>;
const servers: Served[] = [];

beforeEach(async () => {
  ({ path: root, cleanup } = await tempDir());
  cacheDir = join(root, "cache");
});

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
  await cleanup();
});

const GOOD = tarGz([{ name: "SKILL.md", body: skillBody("good") }]);

/** Serves a v0.2 pack of a good archive and `bad` (at `bad.<ext>`), pulls it, and checks the damage. */
async function pullHostile(bad: Buffer, ext: "tar.gz" | "zip", options: { maxArchiveFiles?: number } = {}) {
  const files = new Map<string, string | Buffer>([
    [
      "index.json",
      JSON.stringify({
        $schema: SCHEMA_V0_2,
        skills: [
          { name: "good", type: "archive", url: "good.tar.gz", digest: digestOf(GOOD) },
          { name: "bad", type: "archive", url: `bad.${ext}`, digest: digestOf(bad) },
        ],
      }),
    ],
    ["good.tar.gz", GOOD],
    [`bad.${ext}`, bad],
  ]);
  const server = await serve(staticFiles(files));
  servers.push(server);
  const result = await pull(server.index, { cacheDir, ...options });
  expect(result.files.map((f) => f.split("/").at(-2))).toEqual(["good"]);
  expect(result.skipped).toHaveLength(1);
  // Refused whole: nothing of it anywhere, nothing outside the cache, no staging left behind.
  const everything = await tree(root);
  expect(everything.filter((p) => !p.startsWith("cache/"))).toEqual([]);
  expect(await tree(result.dir)).toEqual([".index.json", ".state.json", "good/", "good/SKILL.md"]);
  return result.skipped[0] as { name: string; code: SkillErrorCode; reason: string };
}

describe("hostile .tar.gz archives are refused whole", () => {
  const cases: [string, Member[], SkillErrorCode, string][] = [
    [
      "a `..` entry",
      [
        { name: "SKILL.md", body: skillBody("bad") },
        { name: "../evil.md", body: "x" },
      ],
      "UNSAFE_PATH",
      '".." segment',
    ],
    [
      "an absolute path",
      [
        { name: "SKILL.md", body: skillBody("bad") },
        { name: "/tmp/skill-remote-evil.md", body: "x" },
      ],
      "UNSAFE_PATH",
      "absolute path",
    ],
    [
      "a backslash",
      [
        { name: "SKILL.md", body: skillBody("bad") },
        { name: "..\\evil.md", body: "x" },
      ],
      "UNSAFE_PATH",
      "backslash",
    ],
    [
      "a symlink to /etc/passwd",
      [
        { name: "SKILL.md", body: skillBody("bad") },
        { name: "passwd", type: "2", link: "/etc/passwd" },
      ],
      "UNSAFE_PATH",
      "outside the skill folder",
    ],
    [
      "a symlink chain leaving the folder",
      [
        { name: "SKILL.md", body: skillBody("bad") },
        { name: "d/", type: "5" },
        { name: "d/b", type: "2", link: ".." },
        { name: "up", type: "2", link: "d/b/../x" },
      ],
      "UNSAFE_PATH",
      "outside the skill folder",
    ],
    [
      "a symlink loop",
      [
        { name: "SKILL.md", body: skillBody("bad") },
        { name: "a", type: "2", link: "b" },
        { name: "b", type: "2", link: "a" },
      ],
      "UNSAFE_PATH",
      "loop",
    ],
    [
      "a hard link outside",
      [
        { name: "SKILL.md", body: skillBody("bad") },
        { name: "h", type: "1", link: "../../etc/passwd" },
      ],
      "UNSAFE_PATH",
      "outside the skill folder",
    ],
    [
      "a character device",
      [
        { name: "SKILL.md", body: skillBody("bad") },
        { name: "tty", type: "3" },
      ],
      "UNSAFE_PATH",
      "is a device",
    ],
    [
      "a FIFO",
      [
        { name: "SKILL.md", body: skillBody("bad") },
        { name: "pipe", type: "6" },
      ],
      "UNSAFE_PATH",
      "is a FIFO",
    ],
    [
      "the same name twice",
      [
        { name: "SKILL.md", body: skillBody("bad") },
        { name: "skill.md", body: "again" },
      ],
      "UNSAFE_PATH",
      "twice",
    ],
    [
      "no SKILL.md at its root",
      [
        { name: "docs/SKILL.md", body: skillBody("bad") },
        { name: "README.md", body: "x" },
      ],
      "MISSING_FIELD",
      "no SKILL.md",
    ],
  ];

  it.each(cases)("%s", async (_title, members, code, reason) => {
    const skipped = await pullHostile(tarGz(members), "tar.gz");
    expect(skipped.name).toBe("bad");
    expect(skipped.code).toBe(code);
    expect(skipped.reason).toContain(reason);
    expect(skipped.reason).toContain("bad.tar.gz");
  });

  it("10,000 tiny files, against the default of 1,000 entries", {
    tags: ["slow"],
    timeout: 30_000,
  }, async () => {
    const members: Member[] = [{ name: "SKILL.md", body: skillBody("bad") }];
    for (let i = 0; i < 10_000; i++) members.push({ name: `f/${i}.md`, body: "x" });
    const skipped = await pullHostile(tarGz(members), "tar.gz");
    expect(skipped.code).toBe("LIMIT_EXCEEDED");
    expect(skipped.reason).toContain("more than 1000 entries (maxArchiveFiles)");
  });

  it("a symlink and a hard link inside the folder become copies of their target", async () => {
    const archive = tarGz([
      { name: "SKILL.md", body: skillBody("linked") },
      { name: "docs/", type: "5" },
      { name: "docs/guide.md", body: "# Guide\n" },
      { name: "guide.md", type: "2", link: "docs/guide.md" },
      { name: "docs/again.md", type: "1", link: "docs/guide.md" },
    ]);
    const files = new Map<string, string | Buffer>([
      [
        "index.json",
        JSON.stringify({
          $schema: SCHEMA_V0_2,
          skills: [{ name: "linked", type: "archive", url: "l.tar.gz", digest: digestOf(archive) }],
        }),
      ],
      ["l.tar.gz", archive],
    ]);
    const server = await serve(staticFiles(files));
    servers.push(server);
    const result = await pull(server.index, { cacheDir });
    expect(result.skipped).toEqual([]);
    expect(await readFile(join(result.dir, "linked", "guide.md"), "utf8")).toBe("# Guide\n");
    expect(await readFile(join(result.dir, "linked", "docs", "again.md"), "utf8")).toBe("# Guide\n");
  });
});

describe("hostile .zip archives are refused whole", () => {
  const cases: [string, ZipMember[], SkillErrorCode, string][] = [
    [
      "a `..` entry",
      [
        { name: "SKILL.md", body: skillBody("bad") },
        { name: "../evil.md", body: "x" },
      ],
      "UNSAFE_PATH",
      '".." segment',
    ],
    [
      "duplicate names",
      [
        { name: "SKILL.md", body: skillBody("bad") },
        { name: "SKILL.md", body: skillBody("bad", "Second") },
      ],
      "UNSAFE_PATH",
      "twice",
    ],
    [
      "a central directory that disagrees with its local header",
      [
        { name: "SKILL.md", body: skillBody("bad") },
        { name: "notes.md", localName: "../../evil.md", body: "x" },
      ],
      "INTEGRITY_ERROR",
      "disagree",
    ],
    [
      "a symlink to /etc/passwd",
      [
        { name: "SKILL.md", body: skillBody("bad") },
        { name: "passwd", body: "/etc/passwd", mode: 0o120777 },
      ],
      "UNSAFE_PATH",
      "outside the skill folder",
    ],
    [
      "a FIFO",
      [
        { name: "SKILL.md", body: skillBody("bad") },
        { name: "pipe", mode: 0o010644 },
      ],
      "UNSAFE_PATH",
      "is a FIFO",
    ],
    ["no SKILL.md", [{ name: "README.md", body: "x" }], "MISSING_FIELD", "no SKILL.md"],
  ];

  it.each(cases)("%s", async (_title, members, code, reason) => {
    const skipped = await pullHostile(zip(members), "zip");
    expect(skipped.code).toBe(code);
    expect(skipped.reason).toContain(reason);
  });

  it("a zip whose single top-level folder holds the skill is read from inside it", async () => {
    const archive = zip([
      { name: "wrapped/", mode: 0o40755 },
      { name: "wrapped/SKILL.md", body: skillBody("wrapped"), deflate: true },
    ]);
    const files = new Map<string, string | Buffer>([
      [
        "index.json",
        JSON.stringify({
          $schema: SCHEMA_V0_2,
          skills: [{ name: "wrapped", type: "archive", url: "w.zip", digest: digestOf(archive) }],
        }),
      ],
      ["w.zip", archive],
    ]);
    const server = await serve(staticFiles(files));
    servers.push(server);
    const result = await pull(server.index, { cacheDir });
    expect(result.skipped).toEqual([]);
    expect(await tree(join(result.dir, "wrapped"))).toEqual(["SKILL.md"]);
  });
});

describe("damaged archives are refused, never half-read", () => {
  const two = () =>
    tar([
      { name: "SKILL.md", body: skillBody("bad") },
      { name: "big.md", body: "y".repeat(5000) },
    ]);
  const cases: [string, () => Buffer, "tar.gz" | "zip"][] = [
    ["a tar cut between entries", () => gzipSync(two().subarray(0, 1024)), "tar.gz"],
    ["a tar cut inside an entry", () => gzipSync(two().subarray(0, 2048)), "tar.gz"],
    [
      "a gzip stream cut short",
      () => tarGz([{ name: "SKILL.md", body: skillBody("bad") }]).subarray(0, 30),
      "tar.gz",
    ],
    ["bytes that are no archive", () => Buffer.from("hello, not an archive"), "tar.gz"],
    ["a zip cut short", () => zip([{ name: "SKILL.md", body: skillBody("bad") }]).subarray(0, 60), "zip"],
  ];
  it.each(cases)("%s", async (_title, make, ext) => {
    const skipped = await pullHostile(make(), ext);
    expect(skipped.code).toBe("INTEGRITY_ERROR");
  });
});

describe("archives written by real tools", () => {
  async function pullArchive(name: string, archive: Buffer, ext: string) {
    const files = new Map<string, string | Buffer>([
      [
        "index.json",
        JSON.stringify({
          $schema: SCHEMA_V0_2,
          skills: [{ name, type: "archive", url: `${name}.${ext}`, digest: digestOf(archive) }],
        }),
      ],
      [`${name}.${ext}`, archive],
    ]);
    const server = await serve(staticFiles(files));
    servers.push(server);
    return pull(server.index, { cacheDir });
  }

  const LONG = `${"deep/".repeat(24)}file.md`;

  async function sourceFolder(): Promise<string> {
    const src = join(root, "src");
    await mkdir(join(src, ...LONG.split("/").slice(0, -1)), { recursive: true });
    await writeFile(join(src, "SKILL.md"), skillBody("made"));
    await writeFile(join(src, LONG), "long path\n");
    return src;
  }

  it("a .tar.gz made by the tar package, with ./ entries and a path past 100 bytes", async () => {
    const src = await sourceFolder();
    const { create } = await import("tar");
    const out = join(root, "made.tar.gz");
    await create({ gzip: true, file: out, cwd: src, portable: true }, ["."]);
    const result = await pullArchive("made", await readFile(out), "tar.gz");
    expect(result.skipped).toEqual([]);
    expect(await readFile(join(result.dir, "made", ...LONG.split("/")), "utf8")).toBe("long path\n");
  });

  it.skipIf(!existsSync("/usr/bin/zip"))(
    "a .zip made by Info-ZIP (skipped where /usr/bin/zip is absent)",
    { tags: ["slow"] },
    async () => {
      const src = await sourceFolder();
      const out = join(root, "made.zip");
      execFileSync("/usr/bin/zip", ["-qr", out, "."], { cwd: src });
      const result = await pullArchive("made", await readFile(out), "zip");
      expect(result.skipped).toEqual([]);
      expect(await readFile(join(result.dir, "made", ...LONG.split("/")), "utf8")).toBe("long path\n");
    },
  );
});

describe("archive bombs stop while inflating", { tags: ["slow"] }, () => {
  const GB = 1024 * 1024 * 1024;
  let tarBomb: Buffer;
  let zipped: Buffer;
  beforeAll(async () => {
    tarBomb = await tarGzBomb(GB);
    zipped = await zipBomb(GB);
  }, 120_000);
  afterAll(() => {
    tarBomb = Buffer.alloc(0);
    zipped = Buffer.alloc(0);
  });

  it.each([
    ["tar.gz", () => tarBomb],
    ["zip", () => zipped],
  ] as const)(
    "a 1 GB-when-inflated .%s member is refused at maxUnpackedBytes, with memory bounded",
    async (ext, bomb) => {
      expect(bomb().length).toBeLessThan(8 * 1024 * 1024);
      const rss = process.memoryUsage().rss;
      const started = Date.now();
      const skipped = await pullHostile(bomb(), ext);
      expect(skipped.code).toBe("LIMIT_EXCEEDED");
      expect(skipped.reason).toContain("more than 25.0 MiB (maxUnpackedBytes); stopped while inflating");
      // Inflating the whole gigabyte would take seconds and, buffered, a gigabyte.
      expect(process.memoryUsage().rss - rss).toBeLessThan(200 * 1024 * 1024);
      expect(Date.now() - started).toBeLessThan(10_000);
    },
    30_000,
  );
});

describe("archive members' modes", () => {
  it("keeps a script executable (tar and zip) and never takes setuid or world-writable bits", async () => {
    const tarred = tarGz([
      { name: "SKILL.md", body: skillBody("tarred") },
      { name: "run.sh", body: "#!/bin/sh\necho hi\n", mode: 0o755 },
      { name: "suid.sh", body: "#!/bin/sh\n", mode: 0o4777 },
      { name: "notes.md", body: "notes", mode: 0o666 },
    ]);
    const zipped = zip([
      { name: "SKILL.md", body: skillBody("zipped") },
      { name: "run.sh", body: "#!/bin/sh\necho hi\n", mode: 0o100755 },
      { name: "notes.md", body: "notes", mode: 0o100666 },
    ]);
    const files = new Map<string, string | Buffer>([
      [
        "index.json",
        JSON.stringify({
          $schema: SCHEMA_V0_2,
          skills: [
            { name: "tarred", type: "archive", url: "tarred.tar.gz", digest: digestOf(tarred) },
            { name: "zipped", type: "archive", url: "zipped.zip", digest: digestOf(zipped) },
          ],
        }),
      ],
      ["tarred.tar.gz", tarred],
      ["zipped.zip", zipped],
    ]);
    const server = await serve(staticFiles(files));
    servers.push(server);
    const result = await pull(server.index, { cacheDir });
    expect(result.skipped).toEqual([]);
    const { stat } = await import("node:fs/promises");
    const modeOf = async (file: string) =>
      (
        await stat(
          join(
            result.files.find((f) => f.includes(`/${file.split("/")[0]}/`)) as string,
            "..",
            file.split("/")[1] as string,
          ),
        )
      ).mode & 0o7777;
    expect(await modeOf("tarred/run.sh")).toBe(0o755);
    expect(await modeOf("tarred/suid.sh")).toBe(0o755);
    expect(await modeOf("tarred/notes.md")).toBe(0o644);
    expect(await modeOf("zipped/run.sh")).toBe(0o755);
    expect(await modeOf("zipped/notes.md")).toBe(0o644);
  });
});
