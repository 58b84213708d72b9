import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { type MemorySkill, memorySource, SkillService, validateSkill } from "@skill/core";
import { omittedNote } from "@skill/format";
import { describe, expect, it } from "vitest";
import { substringSearch } from "./__fixtures__/skills.js";
import { SEARCH_TOOL } from "./definitions.js";
import { skillTools } from "./tools.js";

const agent = { name: "build" };
const ROOT = fileURLToPath(new URL("../../..", import.meta.url));

/** The real skills' metadata the search package is judged on (1,636 names, 94 of them invalid). */
function realCatalog(): MemorySkill[] {
  const file = join(ROOT, "packages/search/test/__fixtures__/catalog.json");
  const { skills } = JSON.parse(readFileSync(file, "utf8")) as {
    skills: { name: string; description: string; source: string }[];
  };
  return skills.map((s) => ({
    location: `mem:${s.source}/${encodeURIComponent(s.name)}/SKILL.md`,
    text: `---\nname: ${JSON.stringify(s.name)}\ndescription: ${JSON.stringify(s.description)}\n---\n# ${s.name}\n`,
  }));
}

/** Every SKILL.md under fixtures/corpus/real, whole. */
function corpusSkills(): MemorySkill[] {
  const base = join(ROOT, "fixtures/corpus/real");
  const found: MemorySkill[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name === "SKILL.md")
        found.push({ location: `mem:corpus/${relative(base, path)}`, text: readFileSync(path, "utf8") });
    }
  };
  walk(base);
  return found;
}

const valid = (service: SkillService, target: "spec" | "codex") => (name: string) =>
  !validateSkill(service.get(name) as never, { strict: true, target }).some(
    (d) => d.severity === "error" && d.code.startsWith("name-"),
  );

/** Skills listed in an XML catalog, in order, and those of them with a description. */
const listed = (text: string) => [...text.matchAll(/<name>([^<]+)<\/name>/g)].map((m) => m[1] as string);
const described = (text: string) =>
  [...text.matchAll(/<name>([^<]+)<\/name>\n {4}<description>/g)].map((m) => m[1] as string);

describe("the catalog at the size of real collections", () => {
  it("1,636 real skills in 8,000 characters: valid names ranked by source, descriptions kept, the way to the rest named", async () => {
    const project = [
      {
        location: "mem:project/team-slides/SKILL.md",
        text: "---\nname: team-slides\ndescription: Our slide template.\n---\n",
      },
    ];
    const service = new SkillService({
      sources: [
        memorySource("global:/home/me/.agents/skills", realCatalog()),
        memorySource("project:/repo", project),
      ],
    });
    await service.discoverAndLoad();
    const all = service.all(agent).map((s) => s.name);
    expect(all.length).toBeGreaterThanOrEqual(1_600);
    const isValid = valid(service, "spec");
    const invalid = all.filter((n) => !isValid(n));
    expect(invalid).toContain("-21risk-automation");
    expect(invalid).toContain("Ahrefs Automation");

    for (const search of [undefined, substringSearch()]) {
      const tools = skillTools(service, { agent, ...(search ? { search } : {}) });
      const catalog = tools.catalog();
      expect(catalog.text.length).toBeLessThanOrEqual(8_000);
      // No name an agent would refuse takes a place while a valid one is left out.
      expect(catalog.included.filter((n) => !isValid(n))).toEqual([]);
      // The project's skill keeps its description; many others do, not a list of bare names.
      expect(described(catalog.text)).toContain("team-slides");
      expect(described(catalog.text).length).toBeGreaterThanOrEqual(15);
      expect(listed(catalog.text).length).toBeGreaterThanOrEqual(60);
      // The last line says how many are left and how to reach them.
      const hint = search ? SEARCH_TOOL : undefined;
      expect(catalog.text).toContain(omittedNote(catalog.omitted.length, hint));
      expect(tools.definitions.map((d) => d.name)).toEqual(search ? ["skill", SEARCH_TOOL] : ["skill"]);
    }
  });

  it("the target decides which names are valid, and usage across sessions ranks within a source", async () => {
    const service = new SkillService({
      sources: [memorySource("global:/home/me/.agents/skills", realCatalog())],
    });
    await service.discoverAndLoad();
    // Codex loads any name of 64 characters or fewer: under its rules these names take places.
    const spec = skillTools(service, { agent, budget: 4_000 }).catalog();
    const codex = skillTools(service, { agent, target: "codex", budget: 4_000 }).catalog();
    expect(spec.included).not.toContain("-21risk-automation");
    expect(codex.included).toContain("-21risk-automation");
    expect(codex.included).toContain("Ahrefs Automation");

    expect(described(spec.text)).not.toContain("xlsx");
    const counts = new Map([
      ["xlsx", 40],
      ["webapp-testing", 12],
    ]);
    const usage = { count: (name: string) => counts.get(name) ?? 0 };
    const tools = skillTools(service, { agent, usage, budget: 4_000 });
    expect(described(tools.catalog().text)).toEqual(expect.arrayContaining(["xlsx", "webapp-testing"]));
    // Counts move at refresh(), not before.
    counts.set("zyte-api-automation", 99);
    expect(described(tools.catalog().text)).not.toContain("zyte-api-automation");
    expect(tools.refresh()).toBe(true);
    expect(described(tools.catalog().text)).toEqual(
      expect.arrayContaining(["zyte-api-automation", "xlsx", "webapp-testing"]),
    );
  });

  it("the real corpus: a name with an underscore goes after every valid one when not all fit", async () => {
    const skills = corpusSkills();
    expect(skills.length).toBeGreaterThanOrEqual(9);
    const service = new SkillService({ sources: [memorySource("global:/home/me/.agents/skills", skills)] });
    await service.discoverAndLoad();
    const names = service.all(agent).map((s) => s.name);
    expect(names).toContain("code_explorer");
    const whole = skillTools(service, { agent, budget: Number.POSITIVE_INFINITY }).catalog();
    expect(whole.omitted).toEqual([]);
    // The first skill to lose its place as the budget shrinks is the invalid name, though it
    // sorts among the first.
    let budget = whole.text.length;
    let tight = whole;
    while (tight.omitted.length === 0 && budget > 0) {
      budget -= 20;
      tight = skillTools(service, { agent, budget }).catalog();
    }
    expect(tight.omitted).toContain("code_explorer");
    // The other names left out are the last by name: the invalid one went first, out of turn.
    const kept = tight.included.filter((n) => n !== "code_explorer");
    const rest = tight.omitted.filter((n) => n !== "code_explorer");
    for (const name of rest) expect(kept.every((k) => k < name)).toBe(true);
    expect(names.indexOf("code_explorer")).toBeLessThan(names.length - rest.length - 1);
  });
});
