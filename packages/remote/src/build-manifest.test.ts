import { cp, mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { SkillService } from "@skill/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { binary, type Served, serve, skillMd, staticDir, tempDir, tree } from "../test/server.js";
import { buildManifest, writeManifest } from "./build-manifest.js";
import { pull } from "./pull.js";

const CORPUS = fileURLToPath(new URL("../../../../shared/corpus", import.meta.url));

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
    expect(manifest.skills).toEqual([
      {
        name: "pdf",
        description: "Read PDFs",
        version: expect.stringMatching(/^[0-9a-f]{16}$/),
        files: ["SKILL.md", "reference/forms.md", "scripts/fill.py"],
      },
      {
        name: "zip",
        description: "The zip skill",
        version: expect.stringMatching(/^[0-9a-f]{16}$/),
        files: ["SKILL.md"],
      },
    ]);
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
    expect(lenient.manifest.skills.map((s) => s.name)).toEqual(["folder"]);
    expect(lenient.diagnostics.map((d) => d.code)).toEqual(["name-mismatch"]);
    const strict = await buildManifest(dir, { strict: true });
    expect(strict.manifest.skills).toEqual([]);
    expect(strict.failed[0]?.error.code).toBe("INVALID_FIELD");
  });

  it("follows symlinks to files and folders, and survives a symlink loop", async () => {
    const dir = await put({ "a/SKILL.md": skillMd("a"), "shared/data.txt": "shared" });
    await symlink(join(dir, "shared"), join(dir, "a", "shared"));
    await symlink(join(dir, "a"), join(dir, "a", "loop"));
    await symlink(join(dir, "missing"), join(dir, "a", "dangling"));
    const { manifest } = await buildManifest(dir);
    expect(manifest.skills[0]?.files).toEqual(["SKILL.md", "shared/data.txt"]);
  });

  it("throws NOT_FOUND for a folder that does not exist", async () => {
    await expect(buildManifest(join(root, "nope"))).rejects.toMatchObject({ code: "NOT_FOUND" });
  });
});

describe("writeManifest → serve → pull", () => {
  it("gives back the same skills, byte for byte, binary files included", async () => {
    const dir = await put({
      "pdf/SKILL.md": skillMd("pdf", "Read PDFs", "# PDF\r\n\r\nSee reference/forms.md\r\n"),
      "pdf/reference/forms.md": "# Forms\n",
      "pdf/assets/logo.png": binary(),
      "pdf/assets/all-bytes.bin": Buffer.from(Array.from({ length: 256 }, (_, i) => i)),
      "zip/SKILL.md": skillMd("zip"),
      "zip/empty.txt": "",
    });
    const written = await writeManifest(dir);
    expect(written.path).toBe(join(dir, "index.json"));
    expect(JSON.parse(await readFile(written.path, "utf8"))).toEqual(written.manifest);
    server = await serve(staticDir(dir));

    const result = await pull(server.index, { cacheDir: join(root, "cache") });

    expect(result.skipped).toEqual([]);
    expect(result.files).toEqual([join(result.dir, "pdf", "SKILL.md"), join(result.dir, "zip", "SKILL.md")]);
    for (const name of ["pdf", "zip"]) {
      expect(await contents(join(result.dir, name))).toEqual(await contents(join(dir, name)));
    }
  });

  it("round-trips real skills from the corpus, and a SkillService loads them all", async () => {
    const dir = join(root, "pack");
    await cp(join(CORPUS, "real", "anthropics-skills", "skills"), dir, { recursive: true });
    const written = await writeManifest(dir);
    expect(written.failed).toEqual([]);
    expect(written.manifest.skills.length).toBeGreaterThanOrEqual(10);
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
  });
});
