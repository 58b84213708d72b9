import { createHash, randomBytes } from "node:crypto";
import { readdir, readFile, realpath, rename, rm, stat, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { gzipSync } from "node:zlib";
import {
  compareCodeUnits,
  type Diagnostic,
  type Logger,
  loadSkillFile,
  quote,
  SkillError,
} from "@skill/core";
import { parseManifest, type RemoteSkillEntry, type RemoteSkillManifest, SCHEMA_V0_2 } from "./manifest.js";
import { fileProblem, MAX_FILES_PER_SKILL, nameProblem } from "./safe-path.js";
import { errorText } from "./text.js";

export interface BuildManifestOptions {
  /** Leave out skills with any spec finding (a name that does not match its folder, …). Default `false`. */
  readonly strict?: boolean;
  /**
   * Write the hybrid index (default `true`): v0.2 `$schema`, `type`, `url` and `digest` per skill,
   * plus `files` for v0.1 clients, and a `.tar.gz` beside each skill with bundled files. `false`
   * writes a v0.1-only index (no `$schema`, no archives) for servers that cannot hold archives.
   */
  readonly archives?: boolean;
  /** The absolute URL the pack will be served from: artifact `url`s become absolute. Default: relative to the index. */
  readonly baseUrl?: string;
  readonly logger?: Logger;
}

/** A pack's manifest, and the skill folders that could not be listed. */
export interface BuildManifestResult {
  readonly manifest: RemoteSkillManifest;
  /** Skill folders left out: `path` is the folder, `error` says why (parse error, unsafe name or file…). */
  readonly failed: readonly { readonly path: string; readonly error: SkillError }[];
  /** Findings about the listed skills (spec warnings, repaired YAML, nested skill folders). */
  readonly diagnostics: readonly Diagnostic[];
  /** The archives the index names: `path` relative to the pack folder, and their exact bytes. */
  readonly archives: readonly { readonly path: string; readonly bytes: Uint8Array }[];
}

interface Found {
  readonly rel: string;
  readonly abs: string;
}

/** How deep skill folders are looked for under folders that are not skills themselves. */
const MAX_NESTING = 3;

async function kind(path: string): Promise<"dir" | "file" | undefined> {
  try {
    const stats = await stat(path);
    return stats.isDirectory() ? "dir" : stats.isFile() ? "file" : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Every file under `root` that a static server would serve, dotfiles and dot-folders left out.
 * Each real folder is walked once, however many links lead to it (a symlink "diamond" stays
 * linear), and the walk stops as soon as it passes `limit` files.
 */
async function listFiles(root: string, limit: number): Promise<Found[]> {
  const found: Found[] = [];
  const seen = new Set<string>();
  const walk = async (abs: string, rel: string) => {
    const real = await realpath(abs);
    if (seen.has(real)) return;
    seen.add(real);
    const entries = (await readdir(abs, { withFileTypes: true })).sort((a, b) =>
      compareCodeUnits(a.name, b.name),
    );
    for (const entry of entries) {
      if (entry.name.startsWith(".")) continue;
      const childAbs = join(abs, entry.name);
      const childRel = rel === "" ? entry.name : `${rel}/${entry.name}`;
      const type = entry.isSymbolicLink()
        ? await kind(childAbs)
        : entry.isDirectory()
          ? "dir"
          : entry.isFile()
            ? "file"
            : undefined;
      if (type === "dir") await walk(childAbs, childRel);
      else if (type === "file") {
        found.push({ rel: childRel, abs: childAbs });
        if (found.length > limit) {
          throw new SkillError(
            "LIMIT_EXCEEDED",
            `Skill folder ${root} cannot be listed: it holds more than ${limit} files`,
            { path: root },
          );
        }
      }
    }
  };
  await walk(root, "");
  return found.sort((a, b) => compareCodeUnits(a.rel, b.rel));
}

/** Skill folders under `root`: `<root>/<x>/SKILL.md`, and deeper under folders that are not skills. */
async function findSkills(root: string): Promise<Found[]> {
  const out: Found[] = [];
  const seen = new Set<string>([await realpath(root)]);
  const visit = async (abs: string, rel: string, depth: number) => {
    let names: string[];
    try {
      names = (await readdir(abs)).sort(compareCodeUnits);
    } catch {
      return;
    }
    for (const name of names) {
      const child = join(abs, name);
      if (name.startsWith(".") || (await kind(child)) !== "dir") continue;
      const childRel = rel === "" ? name : `${rel}/${name}`;
      if ((await kind(join(child, "SKILL.md"))) === "file") out.push({ rel: childRel, abs: child });
      else if (depth < MAX_NESTING) {
        const real = await realpath(child).catch(() => child);
        if (seen.has(real)) continue;
        seen.add(real);
        await visit(child, childRel, depth + 1);
      }
    }
  };
  await visit(root, "", 1);
  return out;
}

/**
 * A `.tar.gz` of `files` that is the same bytes wherever and whenever it is built: entries
 * sorted, no folders, mtime 0, owner 0:0 without names, mode 0644 (0755 when executable), and a
 * gzip header without time or OS.
 */
async function deterministicTarGz(files: readonly Found[]): Promise<Buffer> {
  const { Header, Pax } = await import("tar");
  const blocks: Buffer[] = [];
  for (const file of files) {
    const bytes = await readFile(file.abs);
    const executable = ((await stat(file.abs)).mode & 0o111) !== 0;
    const data = {
      path: file.rel,
      mode: executable ? 0o755 : 0o644,
      uid: 0,
      gid: 0,
      size: bytes.length,
      mtime: new Date(0),
      type: "File" as const,
      uname: "",
      gname: "",
    };
    const header = new Header(data);
    const block = Buffer.alloc(512);
    if (header.encode(block)) blocks.push(new Pax({ path: file.rel }).encode());
    blocks.push(block, bytes, Buffer.alloc((512 - (bytes.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  const gz = gzipSync(Buffer.concat(blocks), { level: 9 });
  gz[9] = 0xff; // OS: unknown, so the bytes do not depend on the platform that built them
  return gz;
}

function sha256(bytes: Uint8Array): string {
  return `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
}

function encodePath(rel: string): string {
  return rel.split("/").map(encodeURIComponent).join("/");
}

interface Described {
  readonly entry: RemoteSkillEntry;
  readonly diagnostics: readonly Diagnostic[];
  readonly archive?: { readonly path: string; readonly bytes: Uint8Array };
}

async function describeSkill(found: Found, options: BuildManifestOptions): Promise<Described> {
  const folder = found.abs;
  const skillPath = join(folder, "SKILL.md");
  const cannot = (code: SkillError["code"], reason: string) =>
    new SkillError(code, `Skill folder ${folder} cannot be listed: ${reason}`, { path: folder });
  const folderProblem = fileProblem(found.rel);
  if (folderProblem) throw cannot("UNSAFE_PATH", `unsafe name ${quote(found.rel)}: ${folderProblem}`);
  // Strict: core refuses a skill with any spec finding (INVALID_FIELD, naming the rules).
  const { skill, diagnostics } = await loadSkillFile(skillPath, { lenient: !options.strict });
  const name = skill.name;
  const problem = nameProblem(name);
  if (problem) throw cannot("UNSAFE_PATH", `unsafe name ${quote(name)}: ${problem}`);
  const files = await listFiles(folder, MAX_FILES_PER_SKILL);
  for (const f of files) {
    const p = fileProblem(f.rel);
    if (p) throw cannot("UNSAFE_PATH", `unsafe file ${quote(f.rel)}: ${p}`);
  }
  const hash = createHash("sha256");
  for (const file of files) {
    const bytes = await readFile(file.abs);
    hash.update(`${file.rel}\0${bytes.length}\0`).update(bytes);
  }
  const version = hash.digest("hex").slice(0, 16);
  // v0.1 clients fetch `<base><name>/<file>`: only a top-level folder named after the skill serves that.
  const servesV01 = found.rel === name;
  const common = { name, description: skill.description, version };

  if (options.archives === false) {
    if (!servesV01) {
      throw cannot(
        "INVALID_FIELD",
        `a v0.1 index serves skills from <name>/ folders, and ${quote(found.rel)} holds the skill ${quote(name)} (write archives to list it)`,
      );
    }
    const candidate = { ...common, files: files.map((f) => f.rel) };
    const { manifest, skipped } = parseManifest({ skills: [candidate] });
    const entry = manifest.skills[0];
    if (!entry) throw cannot(skipped[0]?.code ?? "UNSAFE_PATH", skipped[0]?.reason ?? "refused");
    return { entry, diagnostics };
  }

  const single = files.length === 1 && files[0]?.rel === "SKILL.md";
  let archive: Described["archive"];
  let url: string;
  let digest: string;
  if (single) {
    url = `${encodePath(found.rel)}/SKILL.md`;
    digest = sha256(await readFile(skillPath));
  } else {
    const bytes = await deterministicTarGz(files);
    archive = { path: `${found.rel}.tar.gz`, bytes };
    url = `${encodePath(found.rel)}.tar.gz`;
    digest = sha256(bytes);
  }
  if (options.baseUrl !== undefined) {
    const base = new URL(options.baseUrl);
    base.pathname = `${base.pathname.replace(/\/+$/, "")}/`;
    url = new URL(url, base).href;
  }
  const candidate = {
    name,
    type: single ? "skill-md" : "archive",
    description: skill.description,
    url,
    digest,
    version,
    ...(servesV01 ? { files: files.map((f) => f.rel) } : {}),
  };
  // The rules a pull enforces, for both generations of readers.
  const v2 = parseManifest({ $schema: SCHEMA_V0_2, skills: [candidate] });
  if (!v2.manifest.skills[0])
    throw cannot(v2.skipped[0]?.code ?? "INVALID_FIELD", v2.skipped[0]?.reason ?? "refused");
  if (servesV01) {
    const v1 = parseManifest({ skills: [candidate] });
    if (!v1.manifest.skills[0])
      throw cannot(v1.skipped[0]?.code ?? "UNSAFE_PATH", v1.skipped[0]?.reason ?? "refused");
  }
  const extra: Diagnostic[] = [];
  if (found.rel.includes("/")) {
    extra.push({
      code: "nested-skill",
      severity: "warning",
      message: `Skill ${quote(name)} is nested at ${found.rel}/; v0.1 clients cannot fetch it (only its v0.2 ${single ? "SKILL.md" : "archive"} lists it)`,
      path: skillPath,
    });
  }
  return {
    entry: Object.freeze(candidate) as RemoteSkillEntry,
    diagnostics: [...diagnostics, ...extra],
    ...(archive ? { archive } : {}),
  };
}

/**
 * Scans a folder of skills (`<dir>/<name>/SKILL.md`, and skill folders nested deeper under
 * folders that are not skills, with a `nested-skill` warning) and builds its index. Names come
 * from the frontmatter (a folder named otherwise is reported as `name-mismatch`). By default the
 * index is the hybrid both generations read: v0.2 `$schema`, per skill `name`, `description`,
 * `type`, `url`, `digest` (`skill-md` for a lone SKILL.md, `archive` for a skill with bundled
 * files, whose deterministic `.tar.gz` is returned in `archives`), plus `files` and `version` for
 * v0.1 clients. `archives: false` builds a v0.1-only index. Skills core cannot parse, or that a
 * pull would refuse, are reported in `failed` instead of listed.
 *
 * @throws SkillError `NOT_FOUND` or `READ_ERROR` when `dir` cannot be read
 */
export async function buildManifest(
  dir: string,
  options: BuildManifestOptions = {},
): Promise<BuildManifestResult> {
  const root = resolve(dir);
  let skills: Found[];
  try {
    await readdir(root);
    skills = await findSkills(root);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new SkillError(
      code === "ENOENT" ? "NOT_FOUND" : "READ_ERROR",
      `Cannot read the skill pack folder ${root} (${errorText(error)})`,
      { path: root, cause: error },
    );
  }
  const entries: RemoteSkillEntry[] = [];
  const failed: { path: string; error: SkillError }[] = [];
  const diagnostics: Diagnostic[] = [];
  const archives: { path: string; bytes: Uint8Array }[] = [];
  const names = new Map<string, string>();
  for (const found of skills) {
    try {
      const described = await describeSkill(found, options);
      const key = described.entry.name.normalize("NFC").toLowerCase();
      const earlier = names.get(key);
      if (earlier !== undefined) {
        throw new SkillError(
          "DUPLICATE_NAME",
          `Skill folder ${found.abs} cannot be listed: the skill ${quote(described.entry.name)} is already listed from ${earlier}`,
          { path: found.abs },
        );
      }
      names.set(key, found.abs);
      entries.push(described.entry);
      diagnostics.push(...described.diagnostics);
      if (described.archive) archives.push(described.archive);
    } catch (error) {
      const e = SkillError.isInstance(error)
        ? error
        : new SkillError("READ_ERROR", `Failed to read skill folder ${found.abs} (${errorText(error)})`, {
            path: found.abs,
            cause: error,
          });
      failed.push({ path: found.abs, error: e });
      options.logger?.warn(e.message, { code: e.code, path: found.abs });
    }
  }
  for (const d of diagnostics) {
    if (d.code === "nested-skill" || d.code === "name-mismatch")
      options.logger?.warn(d.message, { code: d.code, ...(d.path ? { path: d.path } : {}) });
  }
  const manifest: RemoteSkillManifest =
    options.archives === false ? { skills: entries } : { schema: SCHEMA_V0_2, skills: entries };
  return { manifest, failed, diagnostics, archives };
}

/** The index as it is written: `$schema` first, for a v0.2 manifest. */
export function manifestJson(manifest: RemoteSkillManifest): string {
  const { schema, skills } = manifest;
  return `${JSON.stringify(schema === undefined ? { skills } : { $schema: schema, skills }, null, 2)}\n`;
}

/**
 * {@link buildManifest}, then writes the archives and `<dir>/index.json` (each to a temporary
 * file first, renamed into place only when all were written). When any skill failed, nothing is
 * written (`written: false`): a pack is published whole or not at all.
 *
 * @throws SkillError `WRITE_ERROR` when a file cannot be written (what was written is removed)
 */
export async function writeManifest(
  dir: string,
  options: BuildManifestOptions = {},
): Promise<BuildManifestResult & { readonly path: string; readonly written: boolean }> {
  const result = await buildManifest(dir, options);
  const root = resolve(dir);
  const path = join(root, "index.json");
  if (result.failed.length > 0) return { ...result, path, written: false };
  const tag = randomBytes(4).toString("hex");
  const writes = [
    ...result.archives.map((a) => ({
      target: join(root, ...a.path.split("/")),
      bytes: a.bytes as Uint8Array | string,
    })),
    { target: path, bytes: manifestJson(result.manifest) as Uint8Array | string },
  ].map((w) => ({ ...w, temp: `${w.target}.${tag}.tmp` }));
  let current = path;
  try {
    for (const w of writes) {
      current = w.target;
      await writeFile(w.temp, w.bytes, { flag: "wx" });
    }
    for (const w of writes) {
      current = w.target;
      await rename(w.temp, w.target);
    }
  } catch (error) {
    await Promise.all(writes.map((w) => rm(w.temp, { force: true }).catch(() => {})));
    throw new SkillError("WRITE_ERROR", `Failed to write ${current} (${errorText(error)})`, {
      path: current,
      cause: error,
    });
  }
  return { ...result, path, written: true };
}
