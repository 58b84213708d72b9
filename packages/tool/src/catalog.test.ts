import { SkillService } from "@skill/core";
import { describe, expect, it } from "vitest";
import { countingSource, substringSearch } from "./__fixtures__/skills.js";
import { SEARCH_TOOL, SKILL_TOOL } from "./definitions.js";
import { DEFAULT_TOOL_BUDGET } from "./tool-options.js";
import { skillTools } from "./tools.js";

const agent = { name: "build" };

function generated(
  prefix: string,
  count: number,
  description = (i: number) => `Use for ${prefix} task ${i}: ${"details ".repeat(8)}`,
) {
  return Array.from({ length: count }, (_, i) => ({
    name: `${prefix}-${String(i).padStart(4, "0")}`,
    description: description(i).trim(),
  }));
}

/** Skills shown with a description in an XML catalog, in catalog order. */
function described(text: string): string[] {
  return [...text.matchAll(/<name>([^<]+)<\/name>\n {4}<description>/g)].map((m) => m[1] as string);
}

function listed(text: string): string[] {
  return [...text.matchAll(/<name>([^<]+)<\/name>/g)].map((m) => m[1] as string);
}

describe("skillTools catalog tiers", () => {
  it("lists every skill of a small registry with its description, and offers no skill_search", async () => {
    const source = countingSource("project:/repo/.agents/skills", generated("small", 20));
    const service = new SkillService({ sources: [source] });
    await service.discoverAndLoad();
    const tools = skillTools(service, { agent, search: substringSearch() });
    const catalog = tools.catalog();
    expect(catalog.included).toHaveLength(20);
    expect(catalog).toMatchObject({ omitted: [], truncated: [], nameOnly: [] });
    expect(described(catalog.text)).toHaveLength(20);
    expect(tools.definitions.map((d) => d.name)).toEqual([SKILL_TOOL]);
    expect(catalog.text).not.toContain("not listed");
  });

  it("says how many skills there are when a budget too small for even one name leaves them all out", async () => {
    const source = countingSource("project:/repo/.agents/skills", generated("tiny", 3));
    const service = new SkillService({ sources: [source] });
    await service.discoverAndLoad();
    const skill = (options: { search?: ReturnType<typeof substringSearch> }) =>
      skillTools(service, { agent, budget: 20, ...options }).definitions.find((d) => d.name === SKILL_TOOL);
    const searched = skill({ search: substringSearch() })?.description ?? "";
    expect(searched).toMatch(
      /\n\n3 skills are available but not listed here; use skill_search to find one\.$/,
    );
    expect(searched).not.toContain("No skills are available");
    expect(skill({})?.description).toMatch(
      /3 skills are available but not listed here; load one by its exact name/,
    );
    // With none at all, it says so.
    const none = new SkillService({ sources: [countingSource("project:/repo/.agents/skills", [])] });
    await none.discoverAndLoad();
    expect(skillTools(none, { agent }).definitions[0]?.description).toMatch(
      /No skills are available right now\.$/,
    );
  });

  it("at 2,000 skills in 8,000 characters: pinned and top-ranked descriptions, then names, then how many are left", async () => {
    // Lowest precedence first: user skills, configured paths, the project.
    const user = countingSource("global:/home/me/.agents/skills", generated("user", 1700));
    const configured = countingSource("config:/team/skills", generated("team", 250));
    const project = countingSource("project:/repo/.agents/skills", generated("proj", 50));
    const service = new SkillService({ sources: [user, configured, project] });
    await service.discoverAndLoad();
    expect(service.all(agent)).toHaveLength(2000);
    const search = substringSearch();
    const started = performance.now();
    const tools = skillTools(service, { agent, search, pinned: ["user-1234", "not-a-skill"] });
    const elapsed = performance.now() - started;
    const catalog = tools.catalog();

    expect(catalog.text.length).toBeLessThanOrEqual(DEFAULT_TOOL_BUDGET);
    const withText = described(catalog.text);
    // The pinned skill first in priority, whole; then project skills by name.
    expect(withText).toContain("user-1234");
    expect(catalog.text).toContain(
      `<description>Use for user task 1234: ${"details ".repeat(8).trim()}</description>`,
    );
    const others = withText.filter((n) => n !== "user-1234");
    expect(others.length).toBeGreaterThan(5);
    expect(others).toEqual(
      generated("proj", 50)
        .slice(0, others.length)
        .map((s) => s.name),
    );
    // Descriptions take at most half the budget; names by rank fill the rest.
    const names = listed(catalog.text);
    expect(names.length).toBeGreaterThan(others.length + 1);
    expect(names).toEqual(catalog.included);
    const order = [
      ...generated("proj", 50),
      ...generated("team", 250),
      ...generated("user", 1700).filter((s) => s.name !== "user-1234"),
    ].map((s) => s.name);
    expect(new Set(names)).toEqual(new Set(["user-1234", ...order.slice(0, names.length - 1)]));
    expect(catalog.omitted).toHaveLength(2000 - names.length);
    // The note, as the model reads it, and the search it points at.
    expect(catalog.text).toContain(
      `  ${2000 - names.length} more skills are not listed here; use skill_search to find one.\n</available_skills>`,
    );
    expect(tools.definitions.map((d) => d.name)).toEqual([SKILL_TOOL, SEARCH_TOOL]);
    expect(search.held).toHaveLength(2000);
    expect(elapsed).toBeLessThan(2000);
  });

  it("with room for every name, project skills keep descriptions before configured ones, then user ones", async () => {
    const user = countingSource("global:/home/me/.agents/skills", generated("user", 40));
    const configured = countingSource("config:/team/skills", generated("team", 40));
    const project = countingSource("project:/repo/.agents/skills", generated("proj", 40));
    const service = new SkillService({ sources: [user, configured, project] });
    await service.discoverAndLoad();
    const tools = skillTools(service, { agent, budget: 9000, search: substringSearch() });
    const catalog = tools.catalog();
    expect(catalog.omitted).toEqual([]);
    const withText = described(catalog.text);
    expect(withText.slice(0, 40)).toEqual(generated("proj", 40).map((s) => s.name));
    expect(withText.length).toBeGreaterThan(40);
    expect(withText.length).toBeLessThan(80);
    expect(withText.slice(40)).toEqual(
      generated("team", 40)
        .slice(0, withText.length - 40)
        .map((s) => s.name),
    );
    expect(catalog.nameOnly.length).toBe(120 - withText.length);
    expect(catalog.text).toContain(
      `${catalog.nameOnly.length} skills are listed without their descriptions; use skill_search`,
    );
    expect(tools.definitions.map((d) => d.name)).toEqual([SKILL_TOOL, SEARCH_TOOL]);
  });

  it("holds the catalog still while the session loads skills: no rank moves, no listener hears", async () => {
    const user = countingSource("global:/home/me/.agents/skills", generated("user", 60));
    const service = new SkillService({ sources: [user] });
    await service.discoverAndLoad();
    const tools = skillTools(service, { agent, budget: 3000 });
    const definitions = tools.definitions;
    const before = tools.catalog();
    expect(described(before.text)).not.toContain("user-0059");
    let changes = 0;
    tools.onChange(() => changes++);
    for (let i = 0; i < 3; i++)
      expect((await tools.call("skill", { name: "user-0059" })).isError).toBe(false);
    expect(tools.catalog()).toEqual(before);
    expect(tools.definitions).toBe(definitions);
    expect(tools.refresh()).toBe(false);
    expect(tools.definitions).toBe(definitions);
    expect(changes).toBe(0);
  });

  it("a rank of the harness's own replaces the default; the catalog can be markdown and measured in tokens", async () => {
    const user = countingSource("global:/home/me/.agents/skills", generated("user", 200));
    const service = new SkillService({ sources: [user] });
    await service.discoverAndLoad();
    const tokens = (text: string) => Math.ceil(text.length / 4);
    const tools = skillTools(service, {
      agent,
      style: "markdown",
      budget: 900,
      measure: tokens,
      rank: (s) => (s.name.endsWith("7") ? 1 : 0),
    });
    const { text } = tools.catalog();
    expect(tokens(text)).toBeLessThanOrEqual(900);
    expect(text.startsWith("## Available Skills\n")).toBe(true);
    const withText = [...text.matchAll(/^- \*\*([^*]+)\*\*: /gm)].map((m) => m[1] as string);
    expect(withText.length).toBeGreaterThan(0);
    expect(withText.every((n) => n.endsWith("7"))).toBe(true);
  });
});
