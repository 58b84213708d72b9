import {
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { type SkillPair, skillChecksum } from "./checksum.js";
import { layoutOf, type TreeLayout, treeSkillFiles } from "./layout.js";
import { poolSlice, prose, Random, sentence, textPool, word, wrap } from "./random.js";

/** Bump when the generator's output changes: trees of another version are regenerated. */
export const GENERATOR_VERSION = 1;

/** How the description of a generated skill is written in YAML. */
export type DescriptionStyle = "plain" | "double-quoted" | "single-quoted" | "folded" | "literal";

/** Ten styles in a cycle: every tree of ten skills or more holds each style. */
const STYLE_CYCLE: readonly DescriptionStyle[] = [
  "plain",
  "plain",
  "folded",
  "plain",
  "double-quoted",
  "plain",
  "literal",
  "plain",
  "single-quoted",
  "folded",
];

/** What the generator wrote, and what every approach must find. */
export interface TreeManifest extends TreeLayout {
  readonly version: number;
  readonly seed: number;
  /** SKILL.md files every approach must find (all names are unique). */
  readonly skills: number;
  /** {@link skillChecksum} of the skills' names and descriptions as YAML reads them. */
  readonly checksum: string;
  /** Every file in the tree, noise included. */
  readonly files: number;
  readonly bytes: number;
  /** SKILL.md files inside `node_modules` folders: finding any of them fails the match. */
  readonly decoys: number;
  readonly styles: Readonly<Record<DescriptionStyle, number>>;
  /** SKILL.md files written with CRLF line endings. */
  readonly crlf: number;
  /** SKILL.md files by depth (path segments below their root, `SKILL.md` included). */
  readonly depths: Readonly<Record<string, number>>;
}

export interface TreeOptions {
  /** Skills to generate; noise scales with it (5 `node_modules` files and 4 `.git` files per skill). */
  readonly skills: number;
  readonly seed?: number;
  /**
   * Write the tree as a scan sees it: every folder and every `SKILL.md`, the same as the full
   * tree's, but no bundled file and no `node_modules` or `.git` noise (default `false`).
   */
  readonly skeleton?: boolean;
}

export const DEFAULT_SEED = 42;

const BUNDLED = [
  "scripts/run.py",
  "scripts/helper.sh",
  "scripts/extract.py",
  "scripts/convert.mjs",
  "references/guide.md",
  "references/api.md",
  "references/forms.md",
  "references/troubleshooting.md",
  "assets/template.txt",
  "assets/schema.json",
  "assets/logo.svg",
  "assets/example.csv",
  "examples/basic.md",
  "examples/advanced.md",
  "LICENSE.txt",
  "README.md",
];

class Writer {
  files = 0;
  bytes = 0;
  readonly #dirs = new Set<string>();

  constructor(readonly skeleton = false) {}

  write(path: string, text: string): void {
    const dir = dirname(path);
    if (!this.#dirs.has(dir)) {
      mkdirSync(dir, { recursive: true });
      this.#dirs.add(dir);
    }
    if (this.skeleton && !path.endsWith("SKILL.md")) return;
    writeFileSync(path, text);
    this.files++;
    this.bytes += Buffer.byteLength(text);
  }

  mkdir(path: string): void {
    mkdirSync(path, { recursive: true });
    this.#dirs.add(path);
  }
}

interface Description {
  readonly yaml: string[];
  /** The value YAML reads, trimmed. */
  readonly value: string;
}

function describe(random: Random, style: DescriptionStyle): Description {
  switch (style) {
    case "plain": {
      const text = prose(random, 100, 600);
      return { yaml: [`description: ${text}`], value: text };
    }
    case "double-quoted": {
      const text = `${prose(random, 100, 500)} Use when: the "${word(random)}" step fails (see #${random.int(1, 99)}).`;
      const escaped = text.replace(/\\/g, "\\\\").replace(/"/g, '\\"');
      return { yaml: [`description: "${escaped}"`], value: text };
    }
    case "single-quoted": {
      const text = `${prose(random, 100, 500)} Use when: it's time to ${word(random)} the ${word(random)}.`;
      return { yaml: [`description: '${text.replace(/'/g, "''")}'`], value: text };
    }
    case "folded": {
      const text = prose(random, 100, 600);
      const lines = wrap(text, random.int(60, 90));
      const indicator = random.chance(0.5) ? ">" : ">-";
      return { yaml: [`description: ${indicator}`, ...lines.map((l) => `  ${l}`)], value: text };
    }
    case "literal": {
      const lines = wrap(prose(random, 100, 600), random.int(60, 90));
      const indicator = random.chance(0.5) ? "|" : "|-";
      return { yaml: [`description: ${indicator}`, ...lines.map((l) => `  ${l}`)], value: lines.join("\n") };
    }
  }
}

function extraFields(random: Random): string[] {
  const lines: string[] = [];
  if (random.chance(0.5)) {
    lines.push(
      `license: ${random.pick(["MIT", "Apache-2.0", "Proprietary. LICENSE.txt has complete terms"])}`,
    );
  }
  if (random.chance(0.2))
    lines.push(`compatibility: Requires python3 and network access to the ${word(random)} api`);
  if (random.chance(0.3)) {
    lines.push(
      "metadata:",
      `  author: ${word(random)}-org`,
      `  version: "${random.int(1, 3)}.${random.int(0, 9)}"`,
    );
  }
  if (random.chance(0.2)) lines.push(`allowed-tools: Bash(git:*) Bash(python:*) Read Write`);
  if (random.chance(0.1)) lines.push(`version: ${random.int(0, 3)}.${random.int(0, 20)}.${random.int(0, 9)}`);
  if (random.chance(0.1)) lines.push(`tags: [${word(random)}, ${word(random)}]`);
  return lines;
}

function body(random: Random, pool: string, name: string): string {
  const target = random.int(2 * 1024, 20 * 1024);
  let text = `# ${name}\n\n${sentence(random)}\n\n## When to use\n\n${poolSlice(random, pool, 300)}\n\n`;
  let section = 1;
  while (text.length < target) {
    text += `## Step ${section++}\n\n${poolSlice(random, pool, random.int(400, 1600))}\n\n`;
    if (random.chance(0.3)) text += "```bash\npython scripts/run.py --input data.json\n```\n\n";
    // A thematic break in the body must never end the frontmatter.
    if (random.chance(0.2)) text += "---\n\n";
  }
  return text;
}

function depthOf(random: Random): number {
  const r = random.next();
  return r < 0.5 ? 2 : r < 0.75 ? 3 : r < 0.9 ? 4 : 5;
}

function hex(random: Random, length: number): string {
  let out = "";
  while (out.length < length) out += random.int(0, 0xffff).toString(16).padStart(4, "0");
  return out.slice(0, length);
}

function decoy(name: string): string {
  return `---\nname: ${name}\ndescription: A skill shipped inside a dependency; no harness may load it.\n---\n# ${name}\n`;
}

function writeNodeModules(random: Random, w: Writer, pool: string, root: string, budget: number): number {
  let decoys = 0;
  let written = 0;
  for (let k = 0; written < budget; k++) {
    const scoped = random.chance(0.2);
    const pkg = join(root, scoped ? `@${word(random)}-${k}` : "", `${word(random)}-lib-${k}`);
    w.write(join(pkg, "package.json"), `{"name":"lib-${k}","version":"1.${k % 10}.0","main":"index.js"}\n`);
    w.write(join(pkg, "index.js"), `module.exports = require("./lib/core.js");\n`);
    w.write(join(pkg, "README.md"), poolSlice(random, pool, random.int(200, 2000)));
    w.write(join(pkg, "lib", "core.js"), `// ${poolSlice(random, pool, random.int(100, 1500))}\n`);
    w.write(join(pkg, "lib", "util.js"), `// ${poolSlice(random, pool, random.int(100, 800))}\n`);
    written += 5;
    if (k % 25 === 0) {
      // Packages that ship skills of their own: none of these may be found.
      w.write(join(pkg, "skills", `decoy-${k}`, "SKILL.md"), decoy(`decoy-${k}`));
      written++;
      decoys++;
    }
  }
  return decoys;
}

function writeGitDir(random: Random, w: Writer, pool: string, gitDir: string, budget: number): void {
  w.write(join(gitDir, "HEAD"), "ref: refs/heads/main\n");
  w.write(join(gitDir, "config"), "[core]\n\trepositoryformatversion = 0\n\tbare = false\n");
  w.write(join(gitDir, "refs", "heads", "main"), `${hex(random, 40)}\n`);
  for (let i = 3; i < budget; i++) {
    w.write(
      join(gitDir, "objects", hex(random, 2), hex(random, 38)),
      poolSlice(random, pool, random.int(100, 600)),
    );
  }
}

/**
 * Writes a synthetic tree of `options.skills` skills into `dir` (which must not exist), with
 * realistic frontmatter, bodies, bundled files and `node_modules`/`.git` noise. Deterministic:
 * the same seed and size give the same bytes.
 */
export function generateTree(dir: string, options: TreeOptions): TreeManifest {
  const seed = options.seed ?? DEFAULT_SEED;
  const random = new Random(seed * 7919 + options.skills);
  const pool = textPool(random);
  const w = new Writer(options.skeleton);

  const layout = layoutOf(dir);
  const { home, cwd, roots } = layout;
  const team = layout.paths[0] as string;
  w.mkdir(home);
  w.write(join(cwd, ".git", "HEAD"), "ref: refs/heads/main\n");
  w.write(join(cwd, "package.json"), `{"name":"project","private":true}\n`);
  w.write(join(team, "README.md"), "# Team skills\n\nCloned skills repository.\n");

  const pairs: SkillPair[] = [];
  const styles: Record<DescriptionStyle, number> = {
    plain: 0,
    "double-quoted": 0,
    "single-quoted": 0,
    folded: 0,
    literal: 0,
  };
  const depths: Record<string, number> = {};
  const groups = Math.max(2, Math.ceil(options.skills / 40));
  let crlf = 0;
  let decoys = 0;
  let nestedNoise = 0;

  for (let i = 0; i < options.skills; i++) {
    const name = `${word(random)}-${word(random)}-${i.toString(36)}`;
    const r = random.next();
    const root = (r < 0.3 ? roots[3] : r < 0.5 ? roots[2] : roots[4]) as string;
    const depth = depthOf(random);
    const segments = Array.from({ length: depth - 2 }, (_, d) => `group-${d}-${random.int(1, groups)}`);
    const skillDir = join(root, ...segments, name);

    const style = STYLE_CYCLE[i % STYLE_CYCLE.length] as DescriptionStyle;
    const description = describe(random, style);
    const nameLine = `name: ${name}`;
    const fields = random.chance(0.2) ? [...description.yaml, nameLine] : [nameLine, ...description.yaml];
    let text = `---\n${[...fields, ...extraFields(random)].join("\n")}\n---\n${body(random, pool, name)}`;
    if ((i + Math.floor(i / 10)) % 10 === 7) {
      text = text.replace(/\n/g, "\r\n");
      crlf++;
    }
    w.write(join(skillDir, "SKILL.md"), text);
    pairs.push({ name, description: description.value });
    styles[style]++;
    depths[depth] = (depths[depth] ?? 0) + 1;

    const bundled = random.shuffle(BUNDLED).slice(0, random.int(6, 14));
    for (const file of bundled) w.write(join(skillDir, file), poolSlice(random, pool, random.int(200, 4000)));

    if (i % 50 === 25) {
      // A skill whose scripts have their own dependencies, one of which ships a SKILL.md.
      const dep = join(skillDir, "scripts", "node_modules", `helper-${i}`);
      w.write(join(dep, "package.json"), `{"name":"helper-${i}","version":"0.1.0"}\n`);
      w.write(join(dep, "SKILL.md"), decoy(`nested-decoy-${i}`));
      decoys++;
      nestedNoise += 2;
    }
  }

  if (!options.skeleton) {
    decoys += writeNodeModules(random, w, pool, join(team, "node_modules"), options.skills * 5 - nestedNoise);
    writeGitDir(random, w, pool, join(team, ".git"), options.skills * 4);
  }

  return {
    version: GENERATOR_VERSION,
    seed,
    skills: pairs.length,
    checksum: skillChecksum(pairs),
    files: w.files,
    bytes: w.bytes,
    decoys,
    styles,
    crlf,
    depths,
    ...layout,
  };
}

type StoredManifest = Omit<TreeManifest, keyof TreeLayout>;

function readManifest(jsonPath: string, dir: string): TreeManifest | undefined {
  try {
    const stored = JSON.parse(readFileSync(jsonPath, "utf8")) as StoredManifest;
    return stored.version === GENERATOR_VERSION ? { ...stored, ...layoutOf(dir) } : undefined;
  } catch {
    return undefined;
  }
}

/** The directory name of a tree: size, seed and generator version. */
export function treeId(options: TreeOptions): string {
  return `skills-${options.skills}-seed-${options.seed ?? DEFAULT_SEED}-v${GENERATOR_VERSION}`;
}

/**
 * The modification time every SKILL.md of a tree is given, in whole seconds since the epoch
 * (2025-01-01T00:00:00Z): far older than any head a cache stores now, so a head cache never
 * takes a tree file for one modified while it was read (its racily-clean rule), and exact, so
 * a file restored after an edit can be given back its old stat key.
 */
export const SKILL_MTIME_S = 1_735_689_600;

/** Gives each of `files` the mtime {@link SKILL_MTIME_S} (and the same atime) unless it has it; returns how many changed. */
export function settleMtimes(files: readonly string[]): number {
  let changed = 0;
  for (const file of files) {
    const stats = statSync(file, { throwIfNoEntry: false });
    if (!stats || stats.mtimeMs === SKILL_MTIME_S * 1000) continue;
    utimesSync(file, SKILL_MTIME_S, SKILL_MTIME_S);
    changed++;
  }
  return changed;
}

/**
 * The tree for these options under `baseDir`, generated only when no complete tree of the same
 * size, seed and generator version is there yet. The manifest is written as `<id>.json` beside
 * the tree `<id>/`, last, so an interrupted generation is redone.
 */
export function ensureTree(
  baseDir: string,
  options: TreeOptions,
): { readonly manifest: TreeManifest; readonly reused: boolean } {
  const id = treeId(options);
  const dir = join(baseDir, id);
  const jsonPath = join(baseDir, `${id}.json`);
  const existing = existsSync(dir) ? readManifest(jsonPath, dir) : undefined;
  if (existing) {
    settleMtimes(treeSkillFiles(existing));
    return { manifest: existing, reused: true };
  }

  rmSync(jsonPath, { force: true });
  rmSync(dir, { recursive: true, force: true });
  const staging = `${dir}.tmp-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  const { home: _h, cwd: _c, paths: _p, roots: _r, ...stored } = generateTree(staging, options);
  renameSync(staging, dir);
  settleMtimes(treeSkillFiles(layoutOf(dir)));
  writeFileSync(jsonPath, `${JSON.stringify(stored satisfies StoredManifest, null, 2)}\n`);
  return { manifest: { ...stored, ...layoutOf(dir) }, reused: false };
}
