import { renameSync, symlinkSync } from "node:fs";
import { cp, lstat, mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { gunzipSync } from "node:zlib";
import { SkillService } from "@skill/core";
import { digestOf, type Served, serve, staticDir } from "@skill/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { corpora, sharedCorpusMissing } from "../../../fixtures/corpus.mjs";
import { binary, skillMd, tempDir, tree } from "../test/server.js";
import { buildManifest, manifestJson, writeManifest } from "./build-manifest.js";
import { SCHEMA_V0_2 } from "./manifest.js";
import { pull } from "./pull.js";

let root: string;
let cleanup: () => Promise<void>;
let server: Served | undefined;

beforeEach(async () => {
  ({ path: root, cleanup } = await tempDir());
});

afterEach(async () => {
  await server?.close();
  server = undefined;
  await cleanup();
});

async function put(files: Record<string, string | Buffer>, base = join(root, "pack")): Promise<string> {
  for (const [path, body] of Object.entries(files)) {
    await mkdir(dirname(join(base, path)), { recursive: true });
    await writeFile(join(base, path), body);
  }
  return base;
}

/** Every file under `dir`, as path → bytes in base64 (strings compare fast; Buffers element by element). */
async function contents(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const path of await tree(dir)) {
    if (!path.endsWith("/")) out[path] = (await readFile(join(dir, path))).toString("base64");
  }
  return out;
}

describe("buildManifest", () => {
  it("lists each skill folder with its files, description and a content version", async () => {
    const dir = await put({
      "pdf/SKILL.md": skillMd("pdf", "Read PDFs"),
      "pdf/reference/forms.md": "# Forms",
      "pdf/scripts/fill.py": "print()",
      "pdf/.DS_Store": "junk",
      "pdf/.cache/x": "junk",
      "zip/SKILL.md": skillMd("zip"),
      "assets/logo.png": binary(),
      ".git/SKILL.md": skillMd("git"),
      "README.md": "# Pack",
    });

    const { manifest, failed, diagnostics } = await buildManifest(dir);

    expect(failed).toEqual([]);
    expect(diagnostics).toEqual([]);
    expect(manifest.schema).toBe(SCHEMA_V0_2);
    expect(manifest.skills).toEqual([
      {
        name: "pdf",
        description: "Read PDFs",
        version: expect.stringMatching(/^[0-9a-f]{16}$/),
        type: "archive",
        url: "pdf.tar.gz",
        digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
        files: ["SKILL.md", "reference/forms.md", "scripts/fill.py"],
      },
      {
        name: "zip",
        description: "The zip skill",
        version: expect.stringMatching(/^[0-9a-f]{16}$/),
        type: "skill-md",
        url: "zip/SKILL.md",
        digest: digestOf(skillMd("zip")),
        files: ["SKILL.md"],
      },
    ]);
  });

  it("tells onProgress as each skill's packing starts, and packs the same when the listener throws", async () => {
    const dir = await put({
      "a/SKILL.md": skillMd("a"),
      "b/SKILL.md": skillMd("b"),
      "c/SKILL.md": skillMd("c"),
    });
    const events: unknown[] = [];
    const told = await writeManifest(dir, { onProgress: (event) => events.push(event) });
    expect(events).toEqual([
      { skill: "a", done: 0, total: 3 },
      { skill: "b", done: 1, total: 3 },
      { skill: "c", done: 2, total: 3 },
    ]);
    const throwing = await buildManifest(dir, {
      onProgress: () => {
        throw new Error("a display that broke");
      },
    });
    expect(throwing.manifest).toEqual(told.manifest);
    expect(throwing.failed).toEqual([]);
  });

  it("changes a skill's version exactly when its content or file list changes", async () => {
    const dir = await put({ "a/SKILL.md": skillMd("a"), "a/x.md": "x", "b/SKILL.md": skillMd("b") });
    const version = async () => (await buildManifest(dir)).manifest.skills.map((s) => s.version);
    const [a1, b1] = await version();
    expect(await version()).toEqual([a1, b1]);
    await writeFile(join(dir, "a", "x.md"), "y");
    const [a2, b2] = await version();
    expect(a2).not.toBe(a1);
    expect(b2).toBe(b1);
    await writeFile(join(dir, "a", "y.md"), "");
    const [a3] = await version();
    expect(a3).not.toBe(a2);
  });

  it("reports skills it cannot list instead of listing them", async () => {
    const dir = await put({
      "good/SKILL.md": skillMd("good"),
      "broken/SKILL.md": "no frontmatter here",
      "nameless/SKILL.md": "---\ndescription: d\n---\n",
      "percent/SKILL.md": skillMd("percent"),
      "percent/a%2e.md": "x",
      "spaced /SKILL.md": skillMd("spaced"),
      "empty-folder/README.md": "not a skill",
    });

    const { manifest, failed } = await buildManifest(dir);

    expect(manifest.skills.map((s) => s.name)).toEqual(["good"]);
    expect(failed.map((f) => [f.path.slice(dir.length + 1), f.error.code, f.error.message])).toEqual([
      ["broken", "PARSE_ERROR", expect.stringContaining("Missing --- frontmatter delimiters")],
      ["nameless", "MISSING_FIELD", expect.stringContaining("Missing frontmatter field 'name'")],
      [
        "percent",
        "UNSAFE_PATH",
        `Skill folder ${join(dir, "percent")} cannot be listed: unsafe file "a%2e.md": it holds "%" (percent-encoding is not allowed)`,
      ],
      [
        "spaced ",
        "UNSAFE_PATH",
        `Skill folder ${join(dir, "spaced ")} cannot be listed: unsafe name "spaced ": "spaced " starts or ends with a space, or ends with a dot`,
      ],
    ]);
  });

  it("keeps spec findings as diagnostics, and leaves such skills out when strict", async () => {
    const dir = await put({ "folder/SKILL.md": skillMd("other-name") });
    const lenient = await buildManifest(dir);
    // The frontmatter names the skill; v0.1 clients could not find it under folder/, so no files.
    expect(lenient.manifest.skills).toEqual([
      expect.objectContaining({ name: "other-name", type: "skill-md", url: "folder/SKILL.md" }),
    ]);
    expect(lenient.manifest.skills[0]?.files).toBeUndefined();
    expect(lenient.diagnostics.map((d) => d.code)).toEqual(["name-mismatch"]);
    const strict = await buildManifest(dir, { strict: true });
    expect(strict.manifest.skills).toEqual([]);
    expect(strict.failed[0]?.error.code).toBe("INVALID_FIELD");
  });

  it("packs a link whose target stays in the skill folder as that file, and survives loops", async () => {
    const dir = await put({ "a/SKILL.md": skillMd("a"), "a/real/data.txt": "shared" });
    await symlink(join(dir, "a", "real"), join(dir, "a", "docs"));
    await symlink("real/data.txt", join(dir, "a", "data-link.txt"));
    await symlink(join(dir, "a"), join(dir, "a", "loop"));
    await symlink(join(dir, "missing"), join(dir, "a", "dangling"));
    const { manifest, diagnostics, failed } = await buildManifest(dir);
    expect(failed).toEqual([]);
    expect(manifest.skills[0]?.files).toEqual([
      "SKILL.md",
      "data-link.txt",
      "docs/data.txt",
      "real/data.txt",
    ]);
    expect(diagnostics.map((d) => [d.code, d.path])).toEqual([["link-dangling", join(dir, "a", "dangling")]]);
  });

  it("refuses a symlink diamond quickly instead of walking its exponential paths", async () => {
    const dir = await put({ "deep/SKILL.md": skillMd("deep") });
    // Level i holds two links to level i+1: 2^20 paths, 21 real folders, all inside the skill.
    let level = join(dir, "deep", "l0");
    await mkdir(level);
    for (let i = 1; i <= 20; i++) {
      const next = join(dir, "deep", "levels", `l${i}`);
      await mkdir(next, { recursive: true });
      await writeFile(join(next, "f.md"), `level ${i}`);
      await symlink(next, join(level, "a"));
      await symlink(next, join(level, "b"));
      level = next;
    }
    const started = Date.now();
    const named = await buildManifest(dir, { skills: [join(dir, "deep", "SKILL.md")] });
    expect(named.manifest.skills).toEqual([]);
    expect(named.failed.map((f) => [f.path, f.error.code])).toEqual([[join(dir, "deep"), "LIMIT_EXCEEDED"]]);
    // Without `skills`, the search for SKILL.md files meets the same bound, and says so.
    await expect(buildManifest(dir)).rejects.toMatchObject({
      code: "LIMIT_EXCEEDED",
      message: expect.stringContaining(`Cannot search the skill pack folder ${dir} for skills`),
    });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("says a pack folder that does not exist is no folder, once", async () => {
    const missing = join(root, "nope");
    await expect(buildManifest(missing)).rejects.toMatchObject({
      code: "NOT_FOUND",
      message: `Cannot read the skill pack folder ${missing} (no such folder)`,
    });
  });

  it("stops walking a folder as soon as it passes the file limit", { tags: ["slow"] }, async () => {
    const files: Record<string, string> = { "big/SKILL.md": skillMd("big") };
    for (let i = 0; i < 1_200; i++) files[`big/f/${i}.md`] = "x";
    const dir = await put(files);
    const { failed } = await buildManifest(dir);
    expect(failed.map((f) => [f.error.code, f.error.message])).toEqual([
      ["LIMIT_EXCEEDED", `Skill folder ${join(dir, "big")} cannot be listed: it holds more than 1000 files`],
    ]);
  });

  it("builds the same archive bytes twice, whatever the files' times", async () => {
    const dir = await put({ "a/SKILL.md": skillMd("a"), "a/b/c.md": "c", "a/z.md": "z" });
    const first = await buildManifest(dir);
    const { utimes } = await import("node:fs/promises");
    await utimes(join(dir, "a", "z.md"), new Date(2001, 1, 1), new Date(2001, 1, 1));
    const second = await buildManifest(dir);
    expect(second.manifest.skills[0]?.digest).toBe(first.manifest.skills[0]?.digest);
    expect(Buffer.from(second.archives[0]?.bytes ?? [])).toEqual(Buffer.from(first.archives[0]?.bytes ?? []));
    expect(first.archives.map((a) => a.path)).toEqual(["a.tar.gz"]);
    expect(first.manifest.skills[0]?.digest).toBe(digestOf(Buffer.from(first.archives[0]?.bytes ?? [])));
  });

  it("writes a v0.1-only index with archives: false", async () => {
    const dir = await put({ "a/SKILL.md": skillMd("a"), "a/x.md": "x" });
    const written = await writeManifest(dir, { archives: false });
    const index = JSON.parse(await readFile(written.path, "utf8"));
    expect(index.$schema).toBeUndefined();
    expect(index.skills).toEqual([
      { name: "a", description: "The a skill", version: expect.any(String), files: ["SKILL.md", "x.md"] },
    ]);
    expect(await tree(dir)).toEqual(["a/", "a/SKILL.md", "a/x.md", "index.json"]);
  });

  it("lists nested skills with a warning, and makes artifact URLs absolute with baseUrl", async () => {
    const dir = await put({ "team/tools/fmt/SKILL.md": skillMd("fmt"), "top/SKILL.md": skillMd("top") });
    const warnings: string[] = [];
    const { manifest, diagnostics } = await buildManifest(dir, {
      baseUrl: "https://cdn.example/packs/team",
      logger: { warn: (m) => warnings.push(m) },
    });
    expect(manifest.skills.map((s) => [s.name, s.url, s.files])).toEqual([
      ["fmt", "https://cdn.example/packs/team/team/tools/fmt/SKILL.md", undefined],
      ["top", "https://cdn.example/packs/team/top/SKILL.md", ["SKILL.md"]],
    ]);
    expect(diagnostics.map((d) => d.code)).toEqual(["nested-skill"]);
    expect(warnings).toEqual([expect.stringContaining("nested at team/tools/fmt/")]);
  });

  it("writes nothing when a skill cannot be listed", async () => {
    const dir = await put({
      "good/SKILL.md": skillMd("good"),
      "good/x.md": "x",
      "broken/SKILL.md": "no frontmatter",
    });
    const written = await writeManifest(dir);
    expect(written.written).toBe(false);
    expect(written.failed.map((f) => f.path)).toEqual([join(dir, "broken")]);
    expect(await tree(dir)).toEqual(["broken/", "broken/SKILL.md", "good/", "good/SKILL.md", "good/x.md"]);
  });

  it("with skipInvalid writes the skills that could be listed and says what it left out", async () => {
    const dir = await put({
      "good/SKILL.md": skillMd("good"),
      "good/x.md": "x",
      "broken/SKILL.md": "no frontmatter",
    });
    const written = await writeManifest(dir, { skipInvalid: true });
    expect(written.written).toBe(true);
    expect(written.failed.map((f) => f.path)).toEqual([join(dir, "broken")]);
    const index = JSON.parse(await readFile(join(dir, "index.json"), "utf8"));
    expect(index.skills.map((s: { name: string }) => s.name)).toEqual(["good"]);
    // Nothing left to publish: nothing written.
    const only = await put({ "broken/SKILL.md": "no frontmatter" }, join(root, "only-broken"));
    expect((await writeManifest(only, { skipInvalid: true })).written).toBe(false);
  });

  it("throws NOT_FOUND for a folder that does not exist", async () => {
    await expect(buildManifest(join(root, "nope"))).rejects.toMatchObject({ code: "NOT_FOUND" });
  });
});

/** The entries of a `.tar.gz`, as tar's own list API reads them: path, type and body. */
async function archiveEntries(file: string): Promise<{ path: string; type: string; body: string }[]> {
  const { list } = await import("tar");
  const out: { path: string; type: string; body: string }[] = [];
  await list({
    file,
    onReadEntry: (entry) => {
      const item = { path: entry.path, type: entry.type, body: "" };
      out.push(item);
      const chunks: Buffer[] = [];
      entry.on("data", (chunk: Buffer) => chunks.push(chunk));
      entry.on("end", () => {
        item.body = Buffer.concat(chunks).toString("utf8");
      });
    },
  });
  return out;
}

describe("links out of a skill folder", () => {
  const KEY =
    "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\n";

  it("are never read or published: not in the archive, not in index.json, each one a warning", async () => {
    await put(
      { ".ssh/id_ed25519": KEY, "private/notes.md": "private notes", "private/token": "t0ken" },
      root,
    );
    const dir = await put({
      "leaky/SKILL.md": skillMd("leaky"),
      "leaky/guide.md": "# Guide\n",
      "other/SKILL.md": skillMd("other"),
      "other/secret.md": "the other skill's file",
    });
    const leaky = join(dir, "leaky");
    await symlink("../../.ssh/id_ed25519", join(leaky, "key")); // a private key two folders up
    await symlink(join(root, "private"), join(leaky, "private")); // a whole folder outside
    await symlink("/etc/passwd", join(leaky, "passwd"));
    await symlink("/proc/self/environ", join(leaky, "environ"));
    await symlink("../other/secret.md", join(leaky, "sibling.md")); // inside the pack, outside the skill
    await symlink("guide.md", join(leaky, "alias.md")); // inside: packed as a copy
    const warnings: string[] = [];

    const written = await writeManifest(dir, { logger: { warn: (m) => warnings.push(m) } });

    expect(written.failed).toEqual([]);
    expect(written.written).toBe(true);
    const index = JSON.parse(await readFile(join(dir, "index.json"), "utf8"));
    const entry = index.skills.find((s: { name: string }) => s.name === "leaky");
    expect(entry.files).toEqual(["SKILL.md", "alias.md", "guide.md"]);
    const entries = await archiveEntries(join(dir, "leaky.tar.gz"));
    expect(entries).toEqual([
      { path: "SKILL.md", type: "File", body: skillMd("leaky") },
      { path: "alias.md", type: "File", body: "# Guide\n" },
      { path: "guide.md", type: "File", body: "# Guide\n" },
    ]);
    const unpacked = gunzipSync(await readFile(join(dir, "leaky.tar.gz"))).toString("latin1");
    for (const secret of [
      "PRIVATE KEY",
      "private notes",
      "t0ken",
      "root:x:0:0",
      "PATH=",
      "other skill's file",
    ]) {
      expect(unpacked).not.toContain(secret);
    }
    const outside = ["environ", "key", "passwd", "private", "sibling.md"].map((f) => join(leaky, f));
    expect(written.diagnostics.map((d) => [d.code, d.path])).toEqual(outside.map((p) => ["link-outside", p]));
    for (const path of outside)
      expect(warnings).toContainEqual(expect.stringContaining(`Not packed: ${path} `));
  });

  it("refuses a skill whose SKILL.md leads out of its folder, and skips a skill folder linked in from outside", async () => {
    await put({ "elsewhere/SKILL.md": skillMd("elsewhere"), "elsewhere/x.md": "x" }, root);
    await put({ "outer.md": skillMd("outer") }, root);
    const dir = await put({ "fine/SKILL.md": skillMd("fine"), "linked-md/.keep": "" });
    await symlink(join(root, "outer.md"), join(dir, "linked-md", "SKILL.md"));
    await symlink(join(root, "elsewhere"), join(dir, "elsewhere"));
    // What a crawl that follows links (discovery's scanSkillFiles) would name.
    const skills = ["elsewhere/SKILL.md", "fine/SKILL.md", "linked-md/SKILL.md"].map((p) => join(dir, p));

    const { manifest, failed, diagnostics } = await buildManifest(dir, { skills });

    expect(manifest.skills.map((s) => s.name)).toEqual(["fine"]);
    expect(failed.map((f) => [f.path, f.error.code])).toEqual([[join(dir, "linked-md"), "UNSAFE_PATH"]]);
    expect(diagnostics.map((d) => [d.code, d.path])).toEqual([["link-outside", join(dir, "elsewhere")]]);
    // Without `skills`, core's walker does not follow either link out of the pack.
    const found = await buildManifest(dir);
    expect(found.manifest.skills.map((s) => s.name)).toEqual(["fine"]);
    expect(found.failed).toEqual([]);
  });
});

describe("writeManifest writes only inside the pack folder", () => {
  it("replaces a link planted at an output file's path, never writing through it", async () => {
    const dir = await put({ "a/SKILL.md": skillMd("a"), "a/x.md": "x" });
    const outside = await put({ "index.json": "theirs", "a.tar.gz": "theirs too" }, join(root, "outside"));
    await symlink(join(outside, "index.json"), join(dir, "index.json"));
    await symlink(join(outside, "a.tar.gz"), join(dir, "a.tar.gz"));
    const written = await writeManifest(dir);
    expect(written.written).toBe(true);
    expect(await contents(outside)).toEqual({
      "a.tar.gz": Buffer.from("theirs too").toString("base64"),
      "index.json": Buffer.from("theirs").toString("base64"),
    });
    for (const name of ["index.json", "a.tar.gz"]) expect((await lstat(join(dir, name))).isFile()).toBe(true);
    expect(await readFile(join(dir, "index.json"), "utf8")).toBe(manifestJson(written.manifest));
    const archive = Buffer.from(written.archives[0]?.bytes ?? []);
    expect((await readFile(join(dir, "a.tar.gz"))).equals(archive)).toBe(true);
  });

  it("refuses a folder swapped for a link out of the pack after the build, writing nothing", async () => {
    const dir = await put({
      "a/SKILL.md": skillMd("a"),
      "a/x.md": "x",
      "team/pdf/SKILL.md": skillMd("pdf"),
      "team/pdf/y.md": "y",
    });
    const outside = join(root, "outside");
    await mkdir(outside);
    let swapped = false;
    // The build logs its nested-skill warning, then writes: `team/` turns into a link out of the pack between.
    const logger = {
      warn: () => {
        if (swapped) return;
        swapped = true;
        renameSync(join(dir, "team"), join(root, "team"));
        symlinkSync(outside, join(dir, "team"));
      },
    };
    await expect(writeManifest(dir, { logger })).rejects.toMatchObject({
      code: "UNSAFE_PATH",
      path: join(dir, "team"),
    });
    expect(swapped).toBe(true);
    expect(await tree(outside)).toEqual([]);
    expect(await tree(dir)).toEqual(["a/", "a/SKILL.md", "a/x.md", "team"]);
  });
});

describe("buildManifest's skills option", () => {
  it("packs exactly the skills named, as SKILL.md paths or folders, absolute or relative", async () => {
    const dir = await put({
      "a/SKILL.md": skillMd("a"),
      "b/SKILL.md": skillMd("b"),
      "b/x.md": "x",
      "c/SKILL.md": skillMd("c"),
      "SKILL.md": skillMd("pack-root"),
    });
    await put({ "stray/SKILL.md": skillMd("stray") }, root);
    const { manifest, failed, diagnostics } = await buildManifest(dir, {
      skills: [join(dir, "a", "SKILL.md"), "b", join(dir, "b"), join(dir, "SKILL.md"), join(root, "stray")],
    });
    expect(manifest.skills.map((s) => [s.name, s.type])).toEqual([
      ["a", "skill-md"],
      ["b", "archive"],
    ]);
    expect(failed.map((f) => [f.path, f.error.code])).toEqual([[join(root, "stray"), "UNSAFE_PATH"]]);
    expect(diagnostics.map((d) => [d.code, d.path])).toEqual([["skill-at-pack-root", join(dir, "SKILL.md")]]);
  });

  it("packs a skill nested in another as its own skill, its files not in the outer archive", async () => {
    const dir = await put({
      "pdf/SKILL.md": skillMd("pdf"),
      "pdf/guide.md": "guide",
      "pdf/forms/SKILL.md": skillMd("forms"),
      "pdf/forms/fill.md": "fill",
    });
    const written = await writeManifest(dir);
    expect(written.failed).toEqual([]);
    expect(written.manifest.skills.map((s) => [s.name, s.url, s.files])).toEqual([
      ["pdf", "pdf.tar.gz", ["SKILL.md", "guide.md"]],
      ["forms", "pdf/forms.tar.gz", undefined],
    ]);
    expect(written.diagnostics).toEqual([
      expect.objectContaining({
        code: "nested-skill",
        message: expect.stringContaining("inside the skill folder pdf/"),
      }),
    ]);
    expect((await archiveEntries(join(dir, "pdf.tar.gz"))).map((e) => e.path)).toEqual([
      "SKILL.md",
      "guide.md",
    ]);
    expect((await archiveEntries(join(dir, "pdf", "forms.tar.gz"))).map((e) => e.path)).toEqual([
      "SKILL.md",
      "fill.md",
    ]);
  });
});

describe("writeManifest → serve → pull", () => {
  it("gives back the same skills, byte for byte, binary files included", async () => {
    const dir = await put({
      "pdf/SKILL.md": skillMd("pdf", "Read PDFs", "# PDF\r\n\r\nSee reference/forms.md\r\n"),
      "pdf/reference/forms.md": "# Forms\n",
      "pdf/assets/logo.png": binary(),
      "pdf/assets/all-bytes.bin": Buffer.from(Array.from({ length: 256 }, (_, i) => i)),
      [`pdf/${"nested-folder/".repeat(8)}past-100-bytes.md`]: "a path the ustar name field cannot hold\n",
      "zip/SKILL.md": skillMd("zip"),
      "zip/empty.txt": "",
    });
    const written = await writeManifest(dir);
    expect(written.path).toBe(join(dir, "index.json"));
    expect(await readFile(written.path, "utf8")).toBe(manifestJson(written.manifest));
    expect(written.written).toBe(true);
    server = await serve(staticDir(dir));

    const result = await pull(server.index, { cacheDir: join(root, "cache") });

    expect(result.skipped).toEqual([]);
    expect(result.files).toEqual([join(result.dir, "pdf", "SKILL.md"), join(result.dir, "zip", "SKILL.md")]);
    for (const name of ["pdf", "zip"]) {
      expect(await contents(join(result.dir, name))).toEqual(await contents(join(dir, name)));
    }
  });

  it("says of each archive the size, entries and unpacked bytes a pull holds against its limits", async () => {
    const dir = await put({
      "big/SKILL.md": skillMd("big"),
      "big/data.bin": "x".repeat(13_600),
      [`big/${"nested-folder/".repeat(8)}past-100-bytes.md`]: "a path the ustar name field cannot hold\n",
      "big/empty.txt": "",
      "one/SKILL.md": skillMd("one"),
    });
    const written = await writeManifest(dir);
    expect(written.archives.map(({ path, name, entries }) => ({ path, name, entries }))).toEqual([
      { path: "big.tar.gz", name: "big", entries: 4 },
    ]);
    const archive = written.archives[0] as (typeof written.archives)[number];
    // data.bin is over 4 KiB; the other three count as 4 KiB each.
    expect(archive.unpackedBytes).toBe(13_600 + 3 * 4096);
    server = await serve(staticDir(dir));
    const at = {
      maxArchiveBytes: archive.bytes.length,
      maxArchiveFiles: archive.entries,
      maxUnpackedBytes: archive.unpackedBytes,
    };
    const pulled = await pull(server.index, { cacheDir: join(root, "at"), ...at });
    expect(pulled.skipped).toEqual([]);
    for (const [key, value] of Object.entries(at)) {
      const past = await pull(server.index, { cacheDir: join(root, key), ...at, [key]: value - 1 });
      expect(past.skipped.map((s) => [s.name, s.code])).toEqual([["big", "LIMIT_EXCEEDED"]]);
      expect(past.skipped[0]?.reason).toContain(`(${key})`);
    }
  });

  it("the hybrid index reads the same as v0.1 to a client that ignores $schema", async () => {
    const dir = await put({ "a/SKILL.md": skillMd("a"), "a/ref/x.md": "x", "b/SKILL.md": skillMd("b") });
    await writeManifest(dir);
    const index = JSON.parse(await readFile(join(dir, "index.json"), "utf8"));
    const { $schema: _schema, ...plain } = index;
    await writeFile(join(dir, "plain.json"), JSON.stringify(plain));
    server = await serve(staticDir(dir));
    const v2 = await pull(server.index, { cacheDir: join(root, "cache") });
    const v1 = await pull(`${server.url}plain.json`, { cacheDir: join(root, "cache") });
    expect(v1.skipped).toEqual([]);
    expect(v2.skipped).toEqual([]);
    for (const name of ["a", "b"]) {
      expect(await contents(join(v1.dir, name))).toEqual(await contents(join(v2.dir, name)));
    }
    expect(server.hits("/a.tar.gz")).toHaveLength(1);
    expect(server.hits("/a/ref/x.md")).toHaveLength(1);
  });

  it.each(corpora)(
    "round-trips the real skills of $label, and a SkillService loads them all",
    async ({ dir: corpus, expected }) => {
      // Every skill folder of the corpus named like its skill, and no other, side by side.
      const dir = join(root, "pack");
      const names = expected.skills.map((s) => s.folderName);
      const unique = expected.skills.filter(
        (s) => s.name === s.folderName && names.filter((n) => n === s.folderName).length === 1,
      );
      for (const s of unique) {
        await cp(dirname(join(corpus, s.path)), join(dir, s.folderName), { recursive: true });
      }
      const written = await writeManifest(dir);
      expect(written.failed).toEqual([]);
      expect(written.manifest.skills).toHaveLength(unique.length);
      server = await serve(staticDir(dir));

      const result = await pull(server.index, { cacheDir: join(root, "cache") });

      expect(result.skipped).toEqual([]);
      expect(result.files).toHaveLength(written.manifest.skills.length);
      for (const skill of written.manifest.skills) {
        expect(await contents(join(result.dir, skill.name)), skill.name).toEqual(
          await contents(join(dir, skill.name)),
        );
      }
      const service = new SkillService();
      for (const file of result.files) await service.load(file);
      expect(service.all().map((s) => s.name)).toEqual(written.manifest.skills.map((s) => s.name));

      // A second pull of the unchanged pack transfers nothing: every version matches.
      server.requests.length = 0;
      await pull(server.index, { cacheDir: join(root, "cache") });
      expect(server.requests.map((r) => r.path)).toEqual(["/index.json"]);
    },
  );

  if (sharedCorpusMissing) it.skip(sharedCorpusMissing, () => {});
});
