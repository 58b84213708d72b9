// Recall of @skill/search on the real-skill catalog, per request set and group: the share of
// requests with an expected skill first (recall@1) and among the first five (recall@5).
//
//   node scripts/search-recall.mjs [--no-summaries] [--misses]
//
// Reads the built package (packages/search/dist: build first) and the fixtures in
// packages/search/test/__fixtures__ (catalog.json, requests.json, requests-users.json,
// requests-heldout.json). `--misses` lists the misses of the first two sets only: the third is
// held out from tuning.
import { fileURLToPath } from "node:url";
import { catalogSkills, readFixture as read } from "./search-catalog.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const { createSkillIndex } = await import(`${root}packages/search/dist/index.js`);
const args = new Set(process.argv.slice(2));

const skills = catalogSkills({ summaries: !args.has("--no-summaries") });
const index = createSkillIndex(skills);
const withSummary = skills.filter((s) => s.summary !== undefined).length;
console.log(
  `${skills.length} skills, ${withSummary} with a summary${args.has("--no-summaries") ? " (left out)" : ""}`,
);

for (const file of ["requests.json", "requests-users.json", "requests-heldout.json"]) {
  const groups = new Map();
  for (const r of read(file).requests) {
    const hits = index.search(r.query, { limit: 5 }).map((h) => h.name);
    const at1 = r.expected.includes(hits[0]);
    const at5 = hits.some((n) => r.expected.includes(n));
    for (const g of ["all", ...(r.group ? [r.group] : [])]) {
      const t = groups.get(g) ?? { n: 0, at1: 0, at5: 0 };
      t.n++;
      t.at1 += at1 ? 1 : 0;
      t.at5 += at5 ? 1 : 0;
      groups.set(g, t);
    }
    if (!at5 && args.has("--misses") && file !== "requests-heldout.json")
      console.log(`  miss  ${r.query}  → ${hits.join(", ")}  (want ${r.expected.join(", ")})`);
  }
  for (const [g, t] of groups) {
    console.log(
      `${file.padEnd(22)} ${g.padEnd(10)} n=${String(t.n).padStart(3)}  recall@1 ${(t.at1 / t.n).toFixed(3)}  recall@5 ${(t.at5 / t.n).toFixed(3)}`,
    );
  }
}
