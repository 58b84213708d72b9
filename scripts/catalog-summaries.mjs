// Adds to the real-skill catalog (packages/search/test/__fixtures__/catalog.json) each skill's
// `allowed-tools` (as its frontmatter gives it, where the source could be read) and its
// body summary — core's `bodySummary`: the first heading and first paragraph of SKILL.md's body,
// at most 500 characters — for the skills whose licence lets a short excerpt be redistributed.
//
//   node scripts/catalog-summaries.mjs <git-dirs>
//
// <git-dirs> holds a git directory per source, named <owner>+<name> (for example
// `git clone --bare https://github.com/anthropics/skills <git-dirs>/anthropics+skills`); a
// `repo` directory inside it is used when present. Each SKILL.md is read at the source's pinned
// commit. Reads core's build (packages/core/dist: build first).
//
// Which skills get one: the skill's licence (the catalog's `license`: its frontmatter's, else
// the collection's) must be MIT, Apache-2.0, MPL-2.0 or CC-BY-SA-4.0. Where it only points to a
// licence file ("Complete terms in LICENSE.txt", "LICENSE", "(per skill)"), the first such file
// found going up from the skill's folder decides, read by its opening lines (a proprietary one
// gives none). Collections with no
// stated licence get none, and neither does anything else (GPL, BSD, proprietary, unknown).
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const { bodySummary, parseSkill, splitFrontmatter } = await import(`${root}packages/core/dist/index.js`);
const catalogFile = `${root}packages/search/test/__fixtures__/catalog.json`;
const gitDirs = process.argv[2];
if (!gitDirs) {
  console.error("usage: node scripts/catalog-summaries.mjs <git-dirs>");
  process.exit(2);
}

const ALLOWED = new Map([
  ["mit", "MIT"],
  ["mit license", "MIT"],
  ["mit licence", "MIT"],
  ["apache-2.0", "Apache-2.0"],
  ["apache-2.0 license", "Apache-2.0"],
  ["apache license, version 2.0", "Apache-2.0"],
  ["mpl-2.0", "MPL-2.0"],
  ["cc-by-sa-4.0", "CC-BY-SA-4.0"],
]);

/** A stated licence that only points to a licence file. */
const POINTS_TO_FILE = /^LICENSE$|LICENSE\.txt|\(per skill\)/;

/** The licence a licence file's text states, by its opening lines; `undefined` when unclear. */
function licenceOfFile(text) {
  const head = text.slice(0, 600).toLowerCase();
  if (head.includes("proprietary") || head.includes("all rights reserved")) return undefined;
  if (/apache license,?\s+(version\s+)?2\.0/.test(head)) return "Apache-2.0";
  if (/^\s*(the )?mit license/.test(head) || head.includes("permission is hereby granted, free of charge"))
    return "MIT";
  if (head.includes("mozilla public license version 2.0")) return "MPL-2.0";
  if (head.includes("attribution-sharealike 4.0")) return "CC-BY-SA-4.0";
  return undefined;
}

function gitDirOf(repo) {
  const dir = `${gitDirs}/${repo.replace("/", "+")}`;
  return existsSync(`${dir}/repo`) ? `${dir}/repo` : dir;
}

function show(gitDir, commit, path) {
  try {
    return execFileSync("git", [`--git-dir=${gitDir}`, "show", `${commit}:${path}`], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch {
    return undefined;
  }
}

/** The licence of the first licence file going up from `path`'s folder. */
function licenceFileAbove(gitDir, commit, path) {
  const parts = path.split("/").slice(0, -1);
  for (let n = parts.length; n >= 0; n--) {
    const dir = parts.slice(0, n).join("/");
    for (const file of ["LICENSE.txt", "LICENSE", "LICENSE.md"]) {
      const text = show(gitDir, commit, dir ? `${dir}/${file}` : file);
      if (text !== undefined) return licenceOfFile(text);
    }
  }
  return undefined;
}

const catalog = JSON.parse(readFileSync(catalogFile, "utf8"));
const sources = new Map(catalog.sources.map((s) => [s.repo, s]));
const counts = new Map();
for (const skill of catalog.skills) {
  delete skill.summary;
  delete skill.allowed_tools;
  const source = sources.get(skill.source);
  const count = counts.get(skill.source) ?? { skills: 0, summaries: 0, allowedTools: 0 };
  counts.set(skill.source, count);
  count.skills++;
  if (source === undefined) continue;
  const gitDir = gitDirOf(source.repo);
  // `allowed-tools` is metadata, like the description: kept wherever the source could be read.
  const file = existsSync(gitDir) ? show(gitDir, source.commit, skill.path) : undefined;
  const allowed =
    file === undefined ? undefined : parseSkill(file, skill.path).skill.frontmatter["allowed-tools"];
  if (allowed !== undefined) {
    skill.allowed_tools = allowed;
    count.allowedTools++;
  }
  if (source.license === "none stated") continue;
  const stated = ALLOWED.get(String(skill.license).trim().toLowerCase());
  const licence =
    stated ??
    (POINTS_TO_FILE.test(skill.license) ? licenceFileAbove(gitDir, source.commit, skill.path) : undefined);
  if (licence === undefined) continue;
  const text = show(gitDir, source.commit, skill.path);
  if (text === undefined) throw new Error(`${skill.path} is not in ${source.repo} at ${source.commit}`);
  const summary = bodySummary(splitFrontmatter(text).body);
  if (summary === undefined) continue;
  skill.summary = summary;
  count.summaries++;
}

// The catalog's layout: two-space indent, a source or a skill a line.
const line = (value) => `    ${JSON.stringify(value)}`;
const out =
  `{\n  "about": ${JSON.stringify(catalog.about)},\n  "sources": [\n${catalog.sources.map(line).join(",\n")}\n  ],\n` +
  `  "skills": [\n${catalog.skills.map(line).join(",\n")}\n  ]\n}\n`;
writeFileSync(catalogFile, out);
for (const [repo, c] of counts)
  console.log(
    `${repo.padEnd(40)} ${c.summaries}/${c.skills} with a summary, ${c.allowedTools} with allowed-tools`,
  );
