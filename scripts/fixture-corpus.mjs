#!/usr/bin/env node
// Rebuilds fixtures/corpus: a small committed subset of ../shared/corpus (the real-skill
// corpus next to the checkout), so corpus tests mean something in a clone without it.
// Usage: node scripts/fixture-corpus.mjs [path/to/shared/corpus]
import { cp, mkdir, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const from = resolve(process.argv[2] ?? join(root, "..", "shared", "corpus"));
const to = join(root, "fixtures", "corpus");

// A handful that keeps the shapes the tests care about: dot-folders, a name shared by two
// sources (shadowing), a name with an underscore, a name that differs from its folder.
const SKILLS = [
  "real/anthropics-skills/skills/brand-guidelines",
  "real/anthropics-skills/skills/internal-comms",
  "real/google-gemini-gemini-cli/.gemini/skills/ci",
  "real/google-gemini-gemini-cli/packages/core/src/skills/builtin/skill-creator",
  "real/google-gemini-gemini-cli/tools/caretaker-agent/cloudrun/triage-worker/.gemini/skills/code_explorer",
  "real/obra-superpowers/skills/verification-before-completion",
  "real/openai-skills/skills/.curated/gh-fix-ci",
  "real/openai-skills/skills/.system/skill-creator",
  "real/vercel-labs-agent-skills/skills/react-view-transitions",
];
const MAX_FILE = 16 * 1024;

const expected = JSON.parse(await readFile(join(from, "expected.json"), "utf8"));
await rm(to, { recursive: true, force: true });
const kept = [];
let leftOut = 0;
for (const folder of SKILLS) {
  const entry = expected.skills.find((s) => s.path === `${folder}/SKILL.md`);
  if (!entry) throw new Error(`${folder}/SKILL.md is not in ${from}/expected.json`);
  kept.push(entry);
  for (const name of await readdir(join(from, folder), { recursive: true })) {
    const file = join(from, folder, name);
    const info = await stat(file);
    if (!info.isFile()) continue;
    if (info.size > MAX_FILE && !name.endsWith("SKILL.md")) {
      leftOut++;
      continue;
    }
    await mkdir(dirname(join(to, folder, name)), { recursive: true });
    await cp(file, join(to, folder, name));
  }
}
// Licence and attribution of every source repository used.
for (const repo of new Set(SKILLS.map((s) => s.split("/").slice(0, 2).join("/")))) {
  for (const name of await readdir(join(from, repo))) {
    if (/^(LICENSE|ATTRIBUTION)/.test(name)) await cp(join(from, repo, name), join(to, repo, name));
  }
}
const paths = new Set(kept.map((s) => s.path));
const duplicates = (expected.duplicates ?? [])
  .map((d) => ({ name: d.name, paths: d.paths.filter((p) => paths.has(p)) }))
  .filter((d) => d.paths.length > 1);
const subset = {
  generator: expected.generator,
  description: `A subset of ../shared/corpus/expected.json, written by scripts/fixture-corpus.mjs; ${expected.description}`,
  parser: expected.parser,
  normalisation: expected.normalisation,
  allowedFields: expected.allowedFields,
  summary: { skills: kept.length },
  duplicates,
  skills: kept,
};
await writeFile(join(to, "expected.json"), `${JSON.stringify(subset, null, 2)}\n`);
console.log(`fixtures/corpus: ${kept.length} skills (${leftOut} files over ${MAX_FILE} bytes left out)`);
