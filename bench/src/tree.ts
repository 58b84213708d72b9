// Seeded trees of skills as a harness meets them: three roots, skills at depths 2–5 with realistic
// files, `node_modules` and `.git` noise, decoy SKILL.md files. Same seed and size, same bytes.
import * as fs from "node:fs";
import { dirname, join, sep } from "node:path";
import { layoutOf, type TreeLayout, treeSkillFiles } from "./layout.js";
import { type SkillPair, skillChecksum } from "./protocol.js";
import { poolSlice, prose, Random, sentence, textPool, word, wrap } from "./random.js";

/** Bump when the generator's output changes: trees of another version are regenerated. */
export const GENERATOR_VERSION = 1;

/** What the generator wrote; `decoys`: SKILL.md files in `node_modules`, which no approach may find. */
export interface TreeManifest
  extends TreeLayout,
    Readonly<Record<"version" | "seed" | "skills" | "files" | "bytes" | "decoys", number>> {
  /** Of the skills every approach must find (unique names), as YAML reads them. */
  readonly checksum: string;
}

/** `skeleton`: every folder and `SKILL.md` of the full tree and nothing else (a scan sees the same). */
type TreeOptions = { readonly skills: number; readonly seed?: number; readonly skeleton?: boolean };

/** Ten description styles in a cycle: every tree of ten skills or more holds each. */
const STYLES = "plain plain folded plain double-quoted plain literal plain single-quoted folded".split(" ");
const BUNDLED = (
  "scripts/run.py scripts/helper.sh scripts/extract.py scripts/convert.mjs references/guide.md references/api.md " +
  "references/forms.md references/troubleshooting.md assets/template.txt assets/schema.json assets/logo.svg " +
  "assets/example.csv examples/basic.md examples/advanced.md LICENSE.txt README.md"
).split(" ");

/** The description's YAML lines and the value YAML reads from them. */
function describe(random: Random, style: string): { yaml: string[]; value: string } {
  if (style === "plain") {
    const text = prose(random, 100, 600);
    return { yaml: [`description: ${text}`], value: text };
  }
  if (style === "double-quoted") {
    const text = `${prose(random, 100, 500)} Use when: the "${word(random)}" step fails (see #${random.int(1, 99)}).`;
    return { yaml: [`description: "${text.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`], value: text };
  }
  if (style === "single-quoted") {
    const text = `${prose(random, 100, 500)} Use when: it's time to ${word(random)} the ${word(random)}.`;
    return { yaml: [`description: '${text.replace(/'/g, "''")}'`], value: text };
  }
  const text = prose(random, 100, 600);
  const lines = wrap(text, random.int(60, 90));
  const indicator = (style === "folded" ? ">" : "|") + (random.chance(0.5) ? "" : "-");
  const value = style === "folded" ? text : lines.join("\n");
  return { yaml: [`description: ${indicator}`, ...lines.map((l) => `  ${l}`)], value };
}

function extraFields(random: Random): string[] {
  const lines: string[] = [];
  const add = (chance: number, line: () => string | string[]) =>
    random.chance(chance) && lines.push(...[line()].flat());
  const licenses = ["MIT", "Apache-2.0", "Proprietary. LICENSE.txt has complete terms"];
  add(0.5, () => `license: ${random.pick(licenses)}`);
  add(0.2, () => `compatibility: Requires python3 and network access to the ${word(random)} api`);
  add(0.3, () => [
    "metadata:",
    `  author: ${word(random)}-org`,
    `  version: "${random.int(1, 3)}.${random.int(0, 9)}"`,
  ]);
  add(0.2, () => "allowed-tools: Bash(git:*) Bash(python:*) Read Write");
  add(0.1, () => `version: ${random.int(0, 3)}.${random.int(0, 20)}.${random.int(0, 9)}`);
  add(0.1, () => `tags: [${word(random)}, ${word(random)}]`);
  return lines;
}

function body(random: Random, pool: string, name: string): string {
  const target = random.int(2 * 1024, 20 * 1024);
  let text = `# ${name}\n\n${sentence(random)}\n\n## When to use\n\n${poolSlice(random, pool, 300)}\n\n`;
  for (let section = 1; text.length < target; section++) {
    text += `## Step ${section}\n\n${poolSlice(random, pool, random.int(400, 1600))}\n\n`;
    if (random.chance(0.3)) text += "```bash\npython scripts/run.py --input data.json\n```\n\n";
    // A thematic break in the body must never end the frontmatter.
    if (random.chance(0.2)) text += "---\n\n";
  }
  return text;
}

function hex(random: Random, length: number): string {
  let out = "";
  while (out.length < length) out += random.int(0, 0xffff).toString(16).padStart(4, "0");
  return out.slice(0, length);
}

const decoy = (name: string) =>
  `---\nname: ${name}\ndescription: A skill shipped inside a dependency; no harness may load it.\n---\n# ${name}\n`;

/** Writes a tree of `options.skills` skills into `dir` (which must not exist). */
export function generateTree(dir: string, options: TreeOptions): TreeManifest {
  const seed = options.seed ?? 42;
  const random = new Random(seed * 7919 + options.skills);
  const pool = textPool(random);
  const [dirs, count] = [new Set<string>(), { files: 0, bytes: 0, decoys: 0 }];
  const write = (path: string, text: string) => {
    if (!dirs.has(dirname(path))) fs.mkdirSync(dirname(path), { recursive: true });
    dirs.add(dirname(path));
    if (options.skeleton && !path.endsWith("SKILL.md")) return;
    fs.writeFileSync(path, text);
    count.files++;
    count.bytes += Buffer.byteLength(text);
    if (path.endsWith("SKILL.md") && path.includes(`${sep}node_modules${sep}`, dir.length)) count.decoys++;
  };
  const layout = layoutOf(dir);
  const [team, roots] = [layout.paths[0] as string, layout.roots];
  fs.mkdirSync(layout.home, { recursive: true });
  write(join(layout.cwd, ".git", "HEAD"), "ref: refs/heads/main\n");
  write(join(layout.cwd, "package.json"), `{"name":"project","private":true}\n`);
  write(join(team, "README.md"), "# Team skills\n\nCloned skills repository.\n");

  const pairs: SkillPair[] = [];
  const groups = Math.max(2, Math.ceil(options.skills / 40));
  for (let i = 0; i < options.skills; i++) {
    const name = `${word(random)}-${word(random)}-${i.toString(36)}`;
    const r = random.next();
    const root = (r < 0.3 ? roots[3] : r < 0.5 ? roots[2] : roots[4]) as string;
    const d = random.next();
    const depth = d < 0.5 ? 2 : d < 0.75 ? 3 : d < 0.9 ? 4 : 5;
    const folders = Array.from({ length: depth - 2 }, (_, k) => `group-${k}-${random.int(1, groups)}`);
    const skillDir = join(root, ...folders, name);
    const description = describe(random, STYLES[i % STYLES.length] as string);
    const nameLine = `name: ${name}`;
    const fields = random.chance(0.2) ? [...description.yaml, nameLine] : [nameLine, ...description.yaml];
    const text = `---\n${[...fields, ...extraFields(random)].join("\n")}\n---\n${body(random, pool, name)}`;
    const crlf = (i + Math.floor(i / 10)) % 10 === 7;
    write(join(skillDir, "SKILL.md"), crlf ? text.replace(/\n/g, "\r\n") : text);
    pairs.push({ name, description: description.value });
    for (const file of random.shuffle(BUNDLED).slice(0, random.int(6, 14)))
      write(join(skillDir, file), poolSlice(random, pool, random.int(200, 4000)));
    if (i % 50 === 25) {
      // A skill whose scripts have their own dependencies, one of which ships a SKILL.md.
      const dep = join(skillDir, "scripts", "node_modules", `helper-${i}`);
      write(join(dep, "package.json"), `{"name":"helper-${i}","version":"0.1.0"}\n`);
      write(join(dep, "SKILL.md"), decoy(`nested-decoy-${i}`));
    }
  }

  // Noise: 5 `node_modules` files and 4 `.git` files per skill; every 25th package ships a skill.
  const modules = join(team, "node_modules");
  let budget = options.skills * 5 - 2 * Math.max(0, Math.ceil((options.skills - 25) / 50));
  for (let k = 0; !options.skeleton && budget > 0; k++) {
    const pkg = join(modules, random.chance(0.2) ? `@${word(random)}-${k}` : "", `${word(random)}-lib-${k}`);
    write(join(pkg, "package.json"), `{"name":"lib-${k}","version":"1.${k % 10}.0","main":"index.js"}\n`);
    write(join(pkg, "index.js"), `module.exports = require("./lib/core.js");\n`);
    write(join(pkg, "README.md"), poolSlice(random, pool, random.int(200, 2000)));
    write(join(pkg, "lib", "core.js"), `// ${poolSlice(random, pool, random.int(100, 1500))}\n`);
    write(join(pkg, "lib", "util.js"), `// ${poolSlice(random, pool, random.int(100, 800))}\n`);
    budget -= k % 25 === 0 ? 6 : 5;
    if (k % 25 === 0) write(join(pkg, "skills", `decoy-${k}`, "SKILL.md"), decoy(`decoy-${k}`));
  }
  const git = join(team, ".git");
  if (!options.skeleton) {
    write(join(git, "HEAD"), "ref: refs/heads/main\n");
    write(join(git, "config"), "[core]\n\trepositoryformatversion = 0\n\tbare = false\n");
    write(join(git, "refs", "heads", "main"), `${hex(random, 40)}\n`);
    for (let i = 3; i < options.skills * 4; i++) {
      const object = join(git, "objects", hex(random, 2), hex(random, 38));
      write(object, poolSlice(random, pool, random.int(100, 600)));
    }
  }
  const checksum = skillChecksum(pairs);
  return { version: GENERATOR_VERSION, seed, skills: pairs.length, checksum, ...count, ...layout };
}

export const treeId = (options: TreeOptions) =>
  `skills-${options.skills}-seed-${options.seed ?? 42}-v${GENERATOR_VERSION}`;

/** Every tree SKILL.md's mtime (2025-01-01, whole seconds): never racily clean, and restorable exactly. */
export const SKILL_MTIME_S = 1_735_689_600;

/** Gives each of `files` that mtime (and atime) unless it has it; returns how many changed. */
export function settleMtimes(files: readonly string[]): number {
  const mtimeMs = (f: string) => fs.statSync(f, { throwIfNoEntry: false })?.mtimeMs ?? SKILL_MTIME_S * 1000;
  const stale = files.filter((f) => mtimeMs(f) !== SKILL_MTIME_S * 1000);
  for (const file of stale) fs.utimesSync(file, SKILL_MTIME_S, SKILL_MTIME_S);
  return stale.length;
}

/** The tree under `baseDir`, generated unless a complete one is there (`<id>.json` is written last). */
export function ensureTree(baseDir: string, options: TreeOptions) {
  const [dir, json] = [join(baseDir, treeId(options)), join(baseDir, `${treeId(options)}.json`)];
  try {
    const stored = JSON.parse(fs.readFileSync(json, "utf8")) as TreeManifest;
    if (fs.existsSync(dir) && stored.version === GENERATOR_VERSION) {
      const manifest = { ...stored, ...layoutOf(dir) };
      settleMtimes(treeSkillFiles(manifest));
      return { manifest, reused: true };
    }
  } catch {}
  const staging = `${dir}.tmp-${process.pid}`;
  for (const path of [json, dir, staging]) fs.rmSync(path, { recursive: true, force: true });
  const { home: _h, cwd: _c, paths: _p, roots: _r, ...stored } = generateTree(staging, options);
  fs.renameSync(staging, dir);
  settleMtimes(treeSkillFiles(layoutOf(dir)));
  fs.writeFileSync(json, `${JSON.stringify(stored, null, 2)}\n`);
  return { manifest: { ...stored, ...layoutOf(dir) }, reused: false };
}
