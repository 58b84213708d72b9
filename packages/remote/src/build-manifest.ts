import { createHash, randomBytes } from "node:crypto";
import { readdir, readFile, realpath, rename, rm, stat, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { type Diagnostic, type Logger, loadSkillFile, SkillError } from "@skill/core";
import { parseManifest, type RemoteSkillEntry, type RemoteSkillManifest } from "./manifest.js";
import { nameProblem } from "./safe-path.js";
import { byCodeUnit, errorText, quote } from "./text.js";

export interface BuildManifestOptions {
  /** Leave out skills with any spec finding (a name that does not match its folder, …). Default `false`. */
  readonly strict?: boolean;
  readonly logger?: Logger;
}

/** A pack's manifest, and the skill folders that could not be listed. */
export interface BuildManifestResult {
  readonly manifest: RemoteSkillManifest;
  /** Skill folders left out: `path` is the folder, `error` says why (parse error, unsafe name or file…). */
  readonly failed: readonly { readonly path: string; readonly error: SkillError }[];
  /** Findings about the listed skills (spec warnings, repaired YAML). */
  readonly diagnostics: readonly Diagnostic[];
}

interface Found {
  readonly rel: string;
  readonly abs: string;
}

async function kind(path: string): Promise<"dir" | "file" | undefined> {
  try {
    const stats = await stat(path);
    return stats.isDirectory() ? "dir" : stats.isFile() ? "file" : undefined;
  } catch {
    return undefined;
  }
}

/** Every file under `root` that a static server would serve, dotfiles and dot-folders left out. */
async function listFiles(root: string): Promise<Found[]> {
  const found: Found[] = [];
  const walk = async (abs: string, rel: string, ancestors: ReadonlySet<string>) => {
    const real = await realpath(abs);
    if (ancestors.has(real)) return; // a symlink back up the tree
    const inner = new Set(ancestors).add(real);
    for (const entry of await readdir(abs, { withFileTypes: true })) {
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
      if (type === "dir") await walk(childAbs, childRel, inner);
      else if (type === "file") found.push({ rel: childRel, abs: childAbs });
    }
  };
  await walk(root, "", new Set());
  return found.sort((a, b) => byCodeUnit(a.rel, b.rel));
}

async function describeSkill(
  folder: string,
  name: string,
  strict: boolean,
): Promise<{ entry: RemoteSkillEntry; diagnostics: readonly Diagnostic[] }> {
  const problem = nameProblem(name);
  if (problem) {
    throw new SkillError(
      "UNSAFE_PATH",
      `Skill folder ${folder} cannot be listed: unsafe name ${quote(name)}: ${problem}`,
      {
        path: folder,
      },
    );
  }
  const { skill, diagnostics } = await loadSkillFile(join(folder, "SKILL.md"), { lenient: !strict });
  const errors = diagnostics.filter((d) => d.severity === "error");
  if (strict && errors.length > 0) {
    throw new SkillError(
      "INVALID_FIELD",
      `Skill ${join(folder, "SKILL.md")} breaks the Agent Skills rules: ${errors.map((d) => d.code).join(", ")}`,
      { path: join(folder, "SKILL.md") },
    );
  }
  const files = await listFiles(folder);
  const hash = createHash("sha256");
  for (const file of files) {
    const bytes = await readFile(file.abs);
    hash.update(`${file.rel}\0${bytes.length}\0`).update(bytes);
  }
  const candidate = {
    name,
    description: skill.description,
    version: hash.digest("hex").slice(0, 16),
    files: files.map((f) => f.rel),
  };
  // The rules a pull enforces: a folder a pull would refuse is not listed.
  const { manifest, skipped } = parseManifest({ skills: [candidate] });
  const entry = manifest.skills[0];
  if (!entry) {
    const reason = skipped[0];
    throw new SkillError(
      reason?.code ?? "UNSAFE_PATH",
      `Skill folder ${folder} cannot be listed: ${reason?.reason}`,
      {
        path: folder,
      },
    );
  }
  return { entry, diagnostics };
}

/**
 * Scans a folder of skills (`<dir>/<name>/SKILL.md`) and builds its `index.json` manifest:
 * each skill's `name` (the folder name), `description`, `files` (every file of the folder,
 * sorted, dotfiles left out, `SKILL.md` included) and `version` (16 hex digits of a SHA-256
 * over the sorted paths and bytes). Skills core cannot parse, or that a pull would refuse, are
 * reported in `failed` instead of listed.
 *
 * @throws SkillError `NOT_FOUND` or `READ_ERROR` when `dir` cannot be read
 */
export async function buildManifest(
  dir: string,
  options: BuildManifestOptions = {},
): Promise<BuildManifestResult> {
  const root = resolve(dir);
  let entries: string[];
  try {
    entries = (await readdir(root)).sort(byCodeUnit);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new SkillError(
      code === "ENOENT" ? "NOT_FOUND" : "READ_ERROR",
      `Cannot read the skill pack folder ${root} (${errorText(error)})`,
      { path: root, cause: error },
    );
  }
  const skills: RemoteSkillEntry[] = [];
  const failed: { path: string; error: SkillError }[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const name of entries) {
    const folder = join(root, name);
    if (name.startsWith(".") || (await kind(folder)) !== "dir") continue;
    if ((await kind(join(folder, "SKILL.md"))) !== "file") {
      options.logger?.debug?.(`Not a skill folder (no SKILL.md): ${folder}`);
      continue;
    }
    try {
      const described = await describeSkill(folder, name, options.strict ?? false);
      skills.push(described.entry);
      diagnostics.push(...described.diagnostics);
    } catch (error) {
      const e = SkillError.isInstance(error)
        ? error
        : new SkillError("READ_ERROR", `Failed to read skill folder ${folder} (${errorText(error)})`, {
            path: folder,
            cause: error,
          });
      failed.push({ path: folder, error: e });
      options.logger?.warn(e.message, { code: e.code, path: folder });
    }
  }
  return { manifest: { skills }, failed, diagnostics };
}

/**
 * {@link buildManifest}, then writes the manifest to `<dir>/index.json` (replaced atomically).
 * Invalid skills are left out of the file and reported in `failed`.
 */
export async function writeManifest(
  dir: string,
  options: BuildManifestOptions = {},
): Promise<BuildManifestResult & { readonly path: string }> {
  const result = await buildManifest(dir, options);
  const path = join(resolve(dir), "index.json");
  const temp = `${path}.${randomBytes(4).toString("hex")}.tmp`;
  try {
    await writeFile(temp, `${JSON.stringify(result.manifest, null, 2)}\n`, { flag: "wx" });
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true }).catch(() => {});
    throw new SkillError("WRITE_ERROR", `Failed to write ${path} (${errorText(error)})`, {
      path,
      cause: error,
    });
  }
  return { ...result, path };
}
