import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { skill } from "./__fixtures__/skills.js";

// Runs against the built package (build before testing), as a consumer would load it.
const dist = fileURLToPath(new URL("../dist/", import.meta.url));
const require = createRequire(import.meta.url);
type Api = typeof import("./index.js");

function exercise(api: Api): void {
  const skills = [skill("pdf", "Fill in PDF forms."), skill("docx", "Edit Word documents.")];
  const index = api.createSkillIndex(skills);
  expect(index.size).toBe(2);
  expect(index.search("pdff form").map((h) => h.name)).toEqual(["pdf"]);
  expect(index.replace([skills[1] as (typeof skills)[1]])).toEqual({ added: 0, changed: 0, removed: 1 });
  const loaded = api.loadSkillIndex(JSON.parse(JSON.stringify(index)), skills);
  expect(loaded.search("word documents").map((h) => h.name)).toEqual(["docx"]);
  expect(loaded.search("forms").map((h) => h.name)).toEqual(["pdf"]);
  expect(api.DEFAULT_SEARCH_LIMIT).toBe(8);
  expect(api.MAX_SEARCH_LIMIT).toBe(100);
}

describe("built package", { tags: ["built"] }, () => {
  it("works through require() of the CJS entry", () => {
    exercise(require(`${dist}index.cjs`) as Api);
  });

  it("works through import() of the ESM entry", async () => {
    exercise((await import(`${dist}index.js`)) as Api);
  });

  it("exports exactly the public names", async () => {
    const names = ["DEFAULT_SEARCH_LIMIT", "MAX_SEARCH_LIMIT", "createSkillIndex", "loadSkillIndex"];
    expect(Object.keys(await import(`${dist}index.js`)).sort()).toEqual(names);
    expect(Object.keys(require(`${dist}index.cjs`)).sort()).toEqual(names);
  });
});
