import { randomBytes } from "node:crypto";
import { readFile, rename } from "node:fs/promises";
import { join } from "node:path";
import { SkillService } from "@skill/core";
import { digestOf, type Served, send, serve, skillBody, staticFiles, tarGz, zip } from "@skill/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { rejection, skillMd, tempDir, tree } from "../test/server.js";
import { urlToDirName } from "./cache-dir.js";
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

async function start(handler: Parameters<typeof serve>[0]): Promise<Served> {
  const server = await serve(handler);
  servers.push(server);
  return server;
}

type Artifact = { name: string; type: "skill-md" | "archive"; path: string; body: string | Buffer };

/** A v0.2 pack: the index at `index.json`, each artifact at its path, digests computed from the bytes. */
function v2Pack(
  artifacts: readonly Artifact[],
  extra: Record<string, object> = {},
): Map<string, string | Buffer> {
  const files = new Map<string, string | Buffer>();
  const skills = artifacts.map((a) => {
    files.set(a.path, a.body);
    return {
      name: a.name,
      type: a.type,
      description: `The ${a.name} skill`,
      url: a.path,
      digest: digestOf(a.body),
      ...(extra[a.name] ?? {}),
    };
  });
  files.set("index.json", JSON.stringify({ $schema: SCHEMA_V0_2, skills }));
  return files;
}

const B_TAR = tarGz([
  { name: "b/", type: "5" },
  { name: "b/SKILL.md", body: skillBody("b") },
  { name: "b/reference/guide.md", body: "# Guide\n" },
]);
const C_ZIP = zip([
  { name: "SKILL.md", body: skillBody("c"), deflate: true },
  { name: "scripts/", mode: 0o40755 },
  { name: "scripts/run.sh", body: "echo hi\n", deflate: true },
]);

describe("pull: a v0.2 index", () => {
  it("brings skill-md, .tar.gz and .zip entries that a SkillService then loads", async () => {
    const files = v2Pack([
      { name: "a", type: "skill-md", path: "a/SKILL.md", body: skillMd("a") },
      { name: "b", type: "archive", path: "b.tar.gz", body: B_TAR },
      { name: "c", type: "archive", path: "archives/c.zip", body: C_ZIP },
    ]);
    const server = await start(staticFiles(files));

    const result = await pull(server.index, { cacheDir });

    const dir = join(cacheDir, urlToDirName(server.index));
    expect(result.skipped).toEqual([]);
    expect(result.indexUrl).toBe(server.index);
    expect(result.files).toEqual(["a", "b", "c"].map((n) => join(dir, n, "SKILL.md")));
    expect(result.changed.map((c) => c.name)).toEqual(["a", "b", "c"]);
    expect(await tree(dir)).toEqual([
      ".index.json",
      ".state.json",
      "a/",
      "a/SKILL.md",
      "b/",
      "b/SKILL.md",
      "b/reference/",
      "b/reference/guide.md",
      "c/",
      "c/SKILL.md",
      "c/scripts/",
      "c/scripts/run.sh",
    ]);
    expect(await readFile(join(dir, "b", "reference", "guide.md"), "utf8")).toBe("# Guide\n");
    expect(await readFile(join(dir, "c", "scripts", "run.sh"), "utf8")).toBe("echo hi\n");
    const service = new SkillService();
    for (const file of result.files) await service.load(file);
    expect(service.get("b")?.description).toBe("The b skill");
    expect(service.get("c")?.description).toBe("The c skill");
  });

  it("unpacks archives too big to hold in memory from a scratch file, and leaves no scratch behind", async () => {
    // Random bytes do not compress: each archive is over the 1 MiB it may hold in memory.
    const data = randomBytes(1536 * 1024);
    const big = tarGz([
      { name: "big/SKILL.md", body: skillBody("big") },
      { name: "big/assets/data.bin", body: data },
    ]);
    const bigZip = zip([
      { name: "SKILL.md", body: skillBody("bigzip"), deflate: true },
      { name: "assets/data.bin", body: data, deflate: true },
    ]);
    expect(big.length).toBeGreaterThan(1024 * 1024);
    expect(bigZip.length).toBeGreaterThan(1024 * 1024);
    const files = v2Pack([
      { name: "big", type: "archive", path: "big.tar.gz", body: big },
      { name: "bigzip", type: "archive", path: "bigzip.zip", body: bigZip },
      { name: "b", type: "archive", path: "b.tar.gz", body: B_TAR },
    ]);
    const server = await start(staticFiles(files));

    const result = await pull(server.index, { cacheDir });

    const dir = join(cacheDir, urlToDirName(server.index));
    expect(result.skipped).toEqual([]);
    expect(await tree(dir)).toEqual([
      ".index.json",
      ".state.json",
      "b/",
      "b/SKILL.md",
      "b/reference/",
      "b/reference/guide.md",
      "big/",
      "big/SKILL.md",
      "big/assets/",
      "big/assets/data.bin",
      "bigzip/",
      "bigzip/SKILL.md",
      "bigzip/assets/",
      "bigzip/assets/data.bin",
    ]);
    expect((await readFile(join(dir, "big", "assets", "data.bin"))).equals(data)).toBe(true);
    expect((await readFile(join(dir, "bigzip", "assets", "data.bin"))).equals(data)).toBe(true);
    // Each skill's head is recorded from the SKILL.md it unpacked, big or small, wrapped or not.
    const state = JSON.parse(await readFile(join(dir, ".state.json"), "utf8"));
    for (const name of ["b", "big", "bigzip"]) {
      expect(state.skills[name].frontmatter).toMatchObject({ name, description: `The ${name} skill` });
    }
  });

  it("removes the scratch file of an archive too big for memory whose digest does not match", async () => {
    const big = tarGz([
      { name: "SKILL.md", body: skillBody("big") },
      { name: "assets/data.bin", body: randomBytes(1536 * 1024) },
    ]);
    expect(big.length).toBeGreaterThan(1024 * 1024);
    const files = v2Pack([
      { name: "big", type: "archive", path: "big.tar.gz", body: big },
      { name: "b", type: "archive", path: "b.tar.gz", body: B_TAR },
    ]);
    const index = JSON.parse(files.get("index.json") as string);
    index.skills[0].digest = digestOf("other bytes");
    files.set("index.json", JSON.stringify(index));
    const server = await start(staticFiles(files));

    const result = await pull(server.index, { cacheDir });

    const dir = join(cacheDir, urlToDirName(server.index));
    expect(result.skipped.map((s) => [s.name, s.code])).toEqual([["big", "INTEGRITY_ERROR"]]);
    expect(await tree(dir)).toEqual([
      ".index.json",
      ".state.json",
      "b/",
      "b/SKILL.md",
      "b/reference/",
      "b/reference/guide.md",
    ]);
  });

  it("skips an unknown type and an entry without a valid digest, without requesting them", async () => {
    const files = v2Pack([{ name: "good", type: "skill-md", path: "good/SKILL.md", body: skillMd("good") }]);
    const index = JSON.parse(files.get("index.json") as string);
    index.skills.push(
      { name: "odd", type: "plugin", url: "odd.bin", digest: digestOf("x") },
      { name: "nodigest", type: "skill-md", url: "nodigest/SKILL.md" },
      { name: "upper", type: "skill-md", url: "upper/SKILL.md", digest: digestOf("x").toUpperCase() },
      { name: "nourl", type: "archive", digest: digestOf("x"), unknownField: true },
    );
    files.set("index.json", JSON.stringify(index));
    const server = await start(staticFiles(files));

    const result = await pull(server.index, { cacheDir });

    expect(result.skipped.map((s) => [s.name, s.code])).toEqual([
      ["odd", "INVALID_FIELD"],
      ["nodigest", "INVALID_FIELD"],
      ["upper", "INVALID_FIELD"],
      ["nourl", "MISSING_FIELD"],
    ]);
    expect(result.skipped[0]?.reason).toBe('unknown "type" "plugin" (expected "skill-md" or "archive")');
    expect(server.requests.map((r) => r.path).sort()).toEqual(["/good/SKILL.md", "/index.json"]);
  });

  it("refuses an index whose $schema it does not know, naming it", async () => {
    const server = await start(
      staticFiles(
        new Map([
          ["index.json", JSON.stringify({ $schema: "https://example.com/skills/9.0.json", skills: [] })],
        ]),
      ),
    );
    const error = await rejection(pull(server.index, { cacheDir }));
    expect(error.code).toBe("REMOTE_ERROR");
    expect(error.message).toBe(
      `Remote fetch failed: ${server.index} names an unknown "$schema" "https://example.com/skills/9.0.json" (expected the Agent Skills discovery schema 0.1.x or 0.2.x); not processed`,
    );
  });

  it("serves the cached copy, with a warning, when the index turns to an unknown $schema", async () => {
    const files = v2Pack([{ name: "a", type: "skill-md", path: "a/SKILL.md", body: skillMd("a") }]);
    const server = await start(staticFiles(files));
    const first = await pull(server.index, { cacheDir });
    files.set("index.json", JSON.stringify({ $schema: "https://example.com/skills/9.0.json", skills: [] }));
    const warnings: string[] = [];

    const result = await pull(server.index, { cacheDir, logger: { warn: (m) => warnings.push(m) } });

    expect(result).toEqual({ ...first, fromCache: true, changed: [] });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^Remote fetch failed: .* names an unknown "\$schema"/);
    expect(warnings[0]).toContain("serving the copy cached at");
    expect(await readFile(join(first.dir, "a", "SKILL.md"), "utf8")).toBe(skillMd("a"));
  });

  it("reads the same hybrid index as v0.1 when $schema is left out, with the same result", async () => {
    const skill = skillMd("h");
    const entry = {
      name: "h",
      type: "skill-md",
      url: "h/SKILL.md",
      digest: digestOf(skill),
      files: ["SKILL.md"],
    };
    const hybrid = await start(
      staticFiles(
        new Map([
          ["index.json", JSON.stringify({ $schema: SCHEMA_V0_2, skills: [entry] })],
          ["h/SKILL.md", skill],
        ]),
      ),
    );
    const plain = await start(
      staticFiles(
        new Map([
          ["index.json", JSON.stringify({ skills: [entry] })],
          ["h/SKILL.md", skill],
        ]),
      ),
    );
    const one = await pull(hybrid.index, { cacheDir });
    const two = await pull(plain.index, { cacheDir });
    expect(one.skipped).toEqual([]);
    expect(two.skipped).toEqual([]);
    expect(await readFile(one.files[0] as string, "utf8")).toBe(skill);
    expect(await readFile(two.files[0] as string, "utf8")).toBe(skill);
    expect(await tree(one.dir)).toEqual(await tree(two.dir));
  });
});

describe("pull: which index a URL names", () => {
  const index = (name: string) =>
    JSON.stringify({
      skills: [{ name, files: ["SKILL.md"] }],
    });

  it("a site reads /.well-known/agent-skills/index.json when it is there", async () => {
    const server = await start(
      staticFiles(
        new Map([
          [".well-known/agent-skills/index.json", index("new")],
          [".well-known/agent-skills/new/SKILL.md", skillMd("new")],
          [".well-known/skills/index.json", index("old")],
        ]),
      ),
    );
    const result = await pull(server.origin, { cacheDir });
    expect(result.indexUrl).toBe(`${server.origin}/.well-known/agent-skills/index.json`);
    expect(result.files.map((f) => f.split("/").at(-2))).toEqual(["new"]);
    expect(server.hits("/.well-known/skills/")).toEqual([]);
  });

  it("a site falls back to /.well-known/skills/index.json on a 404, and keeps one cache", async () => {
    const server = await start(
      staticFiles(
        new Map([
          [".well-known/skills/index.json", index("old")],
          [".well-known/skills/old/SKILL.md", skillMd("old")],
        ]),
      ),
    );
    const result = await pull(`${server.origin}/`, { cacheDir });
    expect(result.indexUrl).toBe(`${server.origin}/.well-known/skills/index.json`);
    expect(result.dir).toBe(join(cacheDir, urlToDirName(server.origin)));
    expect(result.files.map((f) => f.split("/").at(-2))).toEqual(["old"]);
  });

  it("a site with neither: HTTP_ERROR naming both paths", async () => {
    const server = await start(staticFiles(new Map()));
    const error = await rejection(pull(server.origin, { cacheDir }));
    expect(error.code).toBe("HTTP_ERROR");
    expect(error.message).toContain(`${server.origin}/.well-known/skills/index.json`);
    expect(error.message).toContain(`${server.origin}/.well-known/agent-skills/index.json`);
  });

  it("a server error on the first well-known path is not taken for a 404", async () => {
    const server = await start((req, res, log) =>
      req.url?.startsWith("/.well-known/agent-skills/")
        ? send(res, log, 500, "down")
        : send(res, log, 404, "no"),
    );
    const error = await rejection(pull(server.origin, { cacheDir }));
    expect(error.status).toBe(500);
    expect(server.hits("/.well-known/skills/")).toEqual([]);
  });

  it("a pack base reads <base>index.json, and a .json URL is the index itself", async () => {
    const server = await start(
      staticFiles(
        new Map([
          ["team/index.json", index("t")],
          ["team/t/SKILL.md", skillMd("t")],
          ["other/skills.json", index("o")],
          ["other/o/SKILL.md", skillMd("o")],
        ]),
      ),
    );
    expect((await pull(`${server.origin}/team`, { cacheDir })).indexUrl).toBe(
      `${server.origin}/team/index.json`,
    );
    const explicit = await pull(`${server.origin}/other/skills.json`, { cacheDir });
    expect(explicit.indexUrl).toBe(`${server.origin}/other/skills.json`);
    expect(explicit.files.map((f) => f.split("/").at(-2))).toEqual(["o"]);
  });
});

describe("pull: integrity", () => {
  it.each([
    ["skill-md", "a/SKILL.md"],
    ["archive", "a.tar.gz"],
  ] as const)(
    "a %s whose bytes do not match the digest is skipped and the previous copy stays",
    async (type, path) => {
      const good = type === "skill-md" ? skillMd("a") : tarGz([{ name: "SKILL.md", body: skillBody("a") }]);
      const files = v2Pack([{ name: "a", type, path, body: good }]);
      const server = await start(staticFiles(files));
      const first = await pull(server.index, { cacheDir });
      const before = await tree(first.dir);
      const bytes = await readFile(join(first.dir, "a", "SKILL.md"));

      // The index now names new bytes, but the server sends tampered ones.
      const changed =
        type === "skill-md"
          ? skillMd("a", "Changed")
          : tarGz([{ name: "SKILL.md", body: skillBody("a", "Changed") }]);
      const index = JSON.parse(files.get("index.json") as string);
      index.skills[0].digest = digestOf(changed);
      files.set("index.json", JSON.stringify(index));
      files.set(
        path,
        type === "skill-md"
          ? skillMd("a", "Tampered")
          : tarGz([{ name: "SKILL.md", body: skillBody("a", "Tampered") }]),
      );

      const second = await pull(server.index, { cacheDir });
      expect(second.skipped).toHaveLength(1);
      expect(second.skipped[0]?.code).toBe("INTEGRITY_ERROR");
      expect(second.skipped[0]?.reason).toMatch(
        /^Digest mismatch: .* has sha256:[0-9a-f]{64}, the index says sha256:/,
      );
      expect(second.skipped[0]?.reason).toMatch(/; the previous copy was kept$/);
      expect(second.files).toEqual(first.files);
      expect(second.changed).toEqual([]);
      expect(await readFile(join(first.dir, "a", "SKILL.md"))).toEqual(bytes);
      expect(await tree(first.dir)).toEqual(before);
    },
  );

  it("a mismatch on a first pull leaves nothing visible", async () => {
    const files = v2Pack([{ name: "a", type: "skill-md", path: "a/SKILL.md", body: skillMd("a") }]);
    files.set("a/SKILL.md", skillMd("a", "Tampered"));
    const server = await start(staticFiles(files));
    const result = await pull(server.index, { cacheDir });
    expect(result.files).toEqual([]);
    expect(result.skipped.map((s) => s.code)).toEqual(["INTEGRITY_ERROR"]);
    expect(await tree(result.dir)).toEqual([".index.json", ".state.json"]);
  });

  it("a digest-pinned artifact may live on another origin, and redirect across origins", async () => {
    const archive = tarGz([{ name: "SKILL.md", body: skillBody("cdn") }]);
    const cdn = await start(
      staticFiles(
        new Map<string, string | Buffer>([
          ["cdn.tar.gz", archive],
          ["moved/SKILL.md", skillMd("moved")],
        ]),
      ),
    );
    const site = await start((req, res, log) => {
      if (req.url === "/index.json") {
        return send(
          res,
          log,
          200,
          JSON.stringify({
            $schema: SCHEMA_V0_2,
            skills: [
              { name: "cdn", type: "archive", url: `${cdn.url}cdn.tar.gz`, digest: digestOf(archive) },
              { name: "moved", type: "skill-md", url: "moved/SKILL.md", digest: digestOf(skillMd("moved")) },
            ],
          }),
        );
      }
      return send(res, log, 302, "", { location: `${cdn.url}moved/SKILL.md` });
    });
    const result = await pull(site.index, { cacheDir });
    expect(result.skipped).toEqual([]);
    expect(result.files.map((f) => f.split("/").at(-2))).toEqual(["cdn", "moved"]);
  });

  it("an unpinned v0.1 file that redirects to another origin is refused", async () => {
    const other = await start(staticFiles(new Map([["x/SKILL.md", skillMd("x")]])));
    const site = await start((req, res, log) => {
      if (req.url === "/index.json")
        return send(res, log, 200, JSON.stringify({ skills: [{ name: "x", files: ["SKILL.md"] }] }));
      return send(res, log, 302, "", { location: `${other.url}x/SKILL.md` });
    });
    const result = await pull(site.index, { cacheDir });
    expect(result.files).toEqual([]);
    expect(result.skipped[0]?.code).toBe("REMOTE_ERROR");
    expect(result.skipped[0]?.reason).toContain("only same-origin redirects are followed");
    expect(other.requests).toEqual([]);
  });
});

describe("pull: warm pulls", () => {
  const bigPack = (n: number) =>
    v2Pack(
      Array.from({ length: n }, (_, i) => ({
        name: `s${String(i).padStart(3, "0")}`,
        type: "skill-md" as const,
        path: `s${i}/SKILL.md`,
        body: skillMd(`s${String(i).padStart(3, "0")}`),
      })),
    );

  it("an unchanged digest-pinned 500-skill pack costs exactly one request", {
    tags: ["slow"],
    timeout: 30_000,
  }, async () => {
    const server = await start(staticFiles(bigPack(500)));
    const cold = await pull(server.index, { cacheDir, concurrency: 16 });
    expect(cold.files).toHaveLength(500);
    expect(server.requests).toHaveLength(501);

    server.requests.length = 0;
    const warm = await pull(server.index, { cacheDir, concurrency: 16 });
    expect(server.requests.map((r) => [r.path, r.status])).toEqual([["/index.json", 304]]);
    expect(warm.files).toEqual(cold.files);
    expect(warm.changed).toEqual([]);
    expect(warm.fromCache).toBe(false);
  });

  it("an index that answers 200 again downloads only the entries whose digest changed", async () => {
    const files = bigPack(20);
    const server = await start(staticFiles(files, { etag: false }));
    const first = await pull(server.index, { cacheDir });
    const index = JSON.parse(files.get("index.json") as string);
    const changed = skillMd("s005", "Changed");
    files.set("s5/SKILL.md", changed);
    index.skills[5].digest = digestOf(changed);
    files.set("index.json", JSON.stringify(index));

    server.requests.length = 0;
    const second = await pull(server.index, { cacheDir });
    expect(server.requests.map((r) => r.path)).toEqual(["/index.json", "/s5/SKILL.md"]);
    const path = join(first.dir, "s005", "SKILL.md");
    expect(second.changed).toEqual([{ name: "s005", before: path, after: path }]);
    expect(await readFile(path, "utf8")).toBe(changed);
  });

  it("v0.1 entries are revalidated file by file even when the index answers 304", async () => {
    const files = new Map<string, string | Buffer>([
      ["index.json", JSON.stringify({ skills: [{ name: "a", files: ["SKILL.md"] }] })],
      ["a/SKILL.md", skillMd("a")],
    ]);
    const server = await start(staticFiles(files));
    await pull(server.index, { cacheDir });
    files.set("a/SKILL.md", skillMd("a", "Edited without touching the index"));
    server.requests.length = 0;
    const second = await pull(server.index, { cacheDir });
    expect(server.requests.map((r) => [r.path, r.status])).toEqual([
      ["/index.json", 304],
      ["/a/SKILL.md", 200],
    ]);
    expect(await readFile(second.files[0] as string, "utf8")).toContain("Edited without touching the index");
  });

  it("a skill renamed only in letter case leaves no old folder behind", async () => {
    const files = new Map<string, string | Buffer>([
      ["index.json", JSON.stringify({ skills: [{ name: "Tool", files: ["SKILL.md"] }] })],
      ["Tool/SKILL.md", skillMd("Tool")],
      ["tool/SKILL.md", skillMd("tool")],
    ]);
    const server = await start(staticFiles(files));
    const first = await pull(server.index, { cacheDir });
    files.set("index.json", JSON.stringify({ skills: [{ name: "tool", files: ["SKILL.md"] }] }));
    const second = await pull(server.index, { cacheDir });
    expect(second.files).toEqual([join(first.dir, "tool", "SKILL.md")]);
    expect(await tree(first.dir)).toEqual([".index.json", ".state.json", "tool/", "tool/SKILL.md"]);
    // And a later pull still finds nothing stale.
    const third = await pull(server.index, { cacheDir });
    expect(third.changed).toEqual([]);
  });

  it("a missing cached file is fetched again even though the digest did not change", async () => {
    const files = v2Pack([{ name: "a", type: "skill-md", path: "a/SKILL.md", body: skillMd("a") }]);
    const server = await start(staticFiles(files));
    const first = await pull(server.index, { cacheDir });
    await rename(join(first.dir, "a", "SKILL.md"), join(root, "moved-away"));
    server.requests.length = 0;
    const second = await pull(server.index, { cacheDir });
    expect(server.requests.map((r) => r.path)).toEqual(["/index.json", "/a/SKILL.md"]);
    expect(second.files).toEqual(first.files);
  });
});

describe("pull: maxArchiveBytes", () => {
  const MIB = 1024 * 1024;
  let large: Buffer | undefined;
  /** An archive over the default 10 MiB: 11 MiB of random bytes do not compress. */
  const largeArchive = () =>
    (large ??= tarGz([
      { name: "SKILL.md", body: skillBody("large") },
      { name: "assets/data.bin", body: randomBytes(11 * MIB) },
    ]));

  it.each([
    ["announced in Content-Length", true],
    ["sent without a length", false],
  ])(
    "an archive over 10 MiB %s is skipped by default, and pulled with maxArchiveBytes raised",
    { tags: ["slow"] },
    async (_how, announced) => {
      const body = largeArchive();
      expect(body.length).toBeGreaterThan(10 * MIB);
      const files = v2Pack([
        { name: "a", type: "skill-md", path: "a/SKILL.md", body: skillMd("a") },
        { name: "large", type: "archive", path: "large.tar.gz", body },
      ]);
      const chunked: Parameters<typeof staticFiles>[1] = {
        routes: {
          "large.tar.gz": (_req, res) => {
            res.writeHead(200, { "content-type": "application/gzip" });
            res.write(body);
            res.end();
          },
        },
      };
      const server = await start(staticFiles(files, announced ? {} : chunked));

      const refused = await pull(server.index, { cacheDir });

      expect(refused.files.map((f) => f.split("/").at(-2))).toEqual(["a"]);
      expect(refused.skipped.map((s) => [s.name, s.code])).toEqual([["large", "LIMIT_EXCEEDED"]]);
      expect(refused.skipped[0]?.reason).toContain("over the limit of 10.0 MiB (maxArchiveBytes)");

      const pulled = await pull(server.index, { cacheDir, maxArchiveBytes: 12 * MIB });

      expect(pulled.skipped).toEqual([]);
      expect(pulled.files.map((f) => f.split("/").at(-2))).toEqual(["a", "large"]);
      const data = await readFile(join(pulled.dir, "large", "assets", "data.bin"));
      expect(data.length).toBe(11 * MIB);
    },
  );

  it("defaults to maxFileBytes, and raising it leaves maxFileBytes to every other file", async () => {
    const archive = tarGz([
      { name: "SKILL.md", body: skillBody("arc") },
      { name: "data.bin", body: randomBytes(8 * 1024) },
    ]);
    const files = v2Pack([
      { name: "arc", type: "archive", path: "arc.tar.gz", body: archive },
      { name: "long", type: "skill-md", path: "long/SKILL.md", body: skillMd("long").padEnd(6 * 1024) },
    ]);
    const server = await start(staticFiles(files));

    const low = await pull(server.index, { cacheDir, maxFileBytes: 4096 });
    expect(low.skipped.map((s) => [s.name, s.code])).toEqual([
      ["arc", "LIMIT_EXCEEDED"],
      ["long", "LIMIT_EXCEEDED"],
    ]);
    expect(low.skipped[0]?.reason).toContain("(maxArchiveBytes)");
    expect(low.skipped[1]?.reason).toContain("(maxFileBytes)");

    const raised = await pull(server.index, { cacheDir, maxFileBytes: 4096, maxArchiveBytes: 64 * 1024 });
    expect(raised.files.map((f) => f.split("/").at(-2))).toEqual(["arc"]);
    expect(raised.skipped.map((s) => [s.name, s.code])).toEqual([["long", "LIMIT_EXCEEDED"]]);
  });

  it("refuses a value that is not a positive number, naming the option", async () => {
    for (const value of [Number.NaN, "12000000", -1, 0, Number.POSITIVE_INFINITY]) {
      const error = await rejection(
        pull("http://127.0.0.1:9/", { cacheDir, maxArchiveBytes: value as number }),
      );
      expect(error.code).toBe("INVALID_FIELD");
      expect(error.field).toBe("maxArchiveBytes");
      expect(error.message).toMatch(
        /^Invalid pull option 'maxArchiveBytes': expected a positive number, found /,
      );
    }
  });
});
