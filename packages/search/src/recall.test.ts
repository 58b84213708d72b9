import { describe, expect, it } from "vitest";
import { catalogSkills, requests } from "./__fixtures__/skills.js";
import { createSkillIndex } from "./skill-index.js";

// The hand-written requests over the real-skill catalog (test/__fixtures__): a request is found
// at k when one of its expected skills is among the first k hits. The bench reports the numbers
// against baselines; this keeps a floor under them.
describe("recall over the real-skill catalog", () => {
  const skills = catalogSkills();
  const index = createSkillIndex(skills);
  const set = requests();

  it("holds every skill the requests expect", () => {
    const held = new Set(skills.map((s) => s.name));
    expect(skills.length).toBeGreaterThanOrEqual(1_000);
    expect(set.length).toBeGreaterThanOrEqual(150);
    expect(set.flatMap((r) => r.expected).filter((name) => !held.has(name))).toEqual([]);
  });

  it("finds the expected skill in the top 5 for at least 85% of requests, first for 75%", () => {
    let at1 = 0;
    let at5 = 0;
    for (const { query, expected } of set) {
      const hits = index.search(query, { limit: 5 }).map((h) => h.name);
      if (expected.includes(hits[0] as string)) at1++;
      if (hits.some((name) => expected.includes(name))) at5++;
    }
    expect(at5 / set.length).toBeGreaterThanOrEqual(0.85);
    expect(at1 / set.length).toBeGreaterThanOrEqual(0.75);
  });
});
