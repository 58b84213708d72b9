import { SkillService } from "@skill/core";
import { createPermissionPolicy } from "@skill/permissions";
import { describe, expect, it } from "vitest";
import { countingSource, fixedSearch, settableSource, substringSearch } from "./__fixtures__/skills.js";
import { skillTools } from "./tools.js";

const skills = [
  { name: "internal-deploy", description: "Deploy the internal cluster with kubectl." },
  { name: "internal-docs", description: "Search the internal wiki." },
  { name: "release-notes", description: "Write release notes from the git log." },
  { name: "release-tag", description: "Tag a release and push it." },
  { name: "pdf", description: "Read PDF files." },
];

const review = {
  name: "review",
  permission: { skill: { "*": "allow", "internal-deploy": "deny", "release-*": "ask" } },
} as const;

async function setup() {
  const source = countingSource("project:/repo/.agents/skills", skills);
  const service = new SkillService({ sources: [source], permission: createPermissionPolicy() });
  await service.discoverAndLoad();
  return { source, service };
}

describe("skillTools permissions", () => {
  it("a denied skill is absent everywhere: catalog, definitions, search, suggestions, loading", async () => {
    const { source, service } = await setup();
    const search = substringSearch();
    const tools = skillTools(service, { agent: review, search, budget: 150 });
    const everything = JSON.stringify([tools.definitions, tools.catalog()]);
    expect(everything).not.toContain("internal-deploy");
    expect(everything).toContain("internal-docs");
    expect(search.held.map((s) => s.name)).not.toContain("internal-deploy");

    const reads = source.reads.get("internal-deploy");
    const denied = await tools.call("skill", { name: "internal-deploy" });
    const missing = await tools.call("skill", { name: "internal-deplot" });
    expect(denied).toEqual({
      text: 'No skill named "internal-deploy"; similar: internal-docs.',
      isError: true,
    });
    // The same words as for a name that never existed (only the quoted name differs).
    expect(missing.text.replace('"internal-deplot"', '"internal-deploy"')).toBe(denied.text);
    expect(source.reads.get("internal-deploy")).toBe(reads); // nothing read
    expect((await tools.call("skill", { name: "internal-deploy", file: "x.md" })).text).toBe(denied.text);

    const found = await tools.call("skill_search", { query: "internal kubectl cluster deploy" });
    expect(found.text).toContain("internal-docs");
    expect(found.text).not.toContain("internal-deploy");
    // A search that holds the denied name anyway (no replace): still filtered.
    const leaky = skillTools(service, {
      agent: review,
      search: fixedSearch(["internal-deploy", "pdf"]),
      budget: 150,
    });
    const hits = await leaky.call("skill_search", { query: "deploy" });
    expect(hits.text).toContain("<name>pdf</name>");
    expect(hits.text).not.toContain("internal-deploy");
  });

  it("the same skill is there for an agent without the deny", async () => {
    const { service } = await setup();
    const tools = skillTools(service, { agent: { name: "build" } });
    expect(tools.definitions[0]?.description).toContain("internal-deploy");
    expect((await tools.call("skill", { name: "internal-deploy" })).isError).toBe(false);
  });

  it("an ask skill without confirm is refused, saying the user must allow it, and nothing is read", async () => {
    const { source, service } = await setup();
    const tools = skillTools(service, { agent: review });
    expect(tools.definitions[0]?.description).toContain("release-notes"); // ask stays listed
    const reads = source.reads.get("release-notes");
    const result = await tools.call("skill", { name: "release-notes" });
    expect(result).toEqual({
      text: 'The skill "release-notes" may only be loaded with the user\'s permission, and there is no way to ask for it here. Tell the user you need the skill "release-notes" and that they must allow it (a permission rule "release-notes": "allow"); do not try to load it again until they have.',
      isError: true,
    });
    expect(source.reads.get("release-notes")).toBe(reads);
  });

  it("confirm false reads nothing; confirm true loads, once asked for the session", async () => {
    const { source, service } = await setup();
    const asked: string[] = [];
    let answer = false;
    const tools = skillTools(service, {
      agent: review,
      confirm: async (skill) => {
        asked.push(skill.name);
        return answer;
      },
    });
    const reads = source.reads.get("release-tag") ?? 0;
    const refused = await tools.call("skill", { name: "release-tag" });
    expect(refused).toEqual({
      text: 'The user did not allow the skill "release-tag", so it was not loaded. Go on without it, and do not ask for it again unless the user does.',
      isError: true,
    });
    expect(source.reads.get("release-tag")).toBe(reads);
    expect(asked).toEqual(["release-tag"]);

    answer = true;
    const loaded = await tools.call("skill", { name: "release-tag" });
    expect(loaded.isError).toBe(false);
    expect(loaded.text).toContain('<skill_content name="release-tag">');
    expect(source.reads.get("release-tag")).toBe(reads + 1);
    answer = false; // already allowed for this session
    expect((await tools.call("skill", { name: "release-tag" })).isError).toBe(false);
    expect(asked).toEqual(["release-tag", "release-tag"]);
    // An allow skill is never asked about.
    expect((await tools.call("skill", { name: "pdf" })).isError).toBe(false);
    expect(asked).toEqual(["release-tag", "release-tag"]);
  });

  it("a confirm that fails is a refusal, and nothing is read", async () => {
    const { source, service } = await setup();
    const tools = skillTools(service, {
      agent: review,
      confirm: async () => {
        throw new Error("no terminal");
      },
    });
    const reads = source.reads.get("release-notes");
    expect(await tools.call("skill", { name: "release-notes" })).toEqual({
      text: 'Asking the user to allow the skill "release-notes" failed (no terminal); it was not loaded.',
      isError: true,
    });
    expect(source.reads.get("release-notes")).toBe(reads);
  });

  it("changes() never names a skill the agent may not see or the model may not load", async () => {
    const { source, state } = settableSource("project:/repo/.agents/skills");
    state.skills = [{ name: "pdf", description: "Read PDF files." }];
    const service = new SkillService({ sources: [source], permission: createPermissionPolicy() });
    await service.discoverAndLoad();
    const tools = skillTools(service, { agent: review });
    state.skills = [
      ...state.skills,
      { name: "internal-deploy", description: "Denied to review." },
      { name: "manual", description: "User only.", extra: "disable-model-invocation: true\n" },
      { name: "docs", description: "New and visible." },
    ];
    await service.discoverAndLoad();
    expect(tools.changes()).toBe(
      "Skills changed since the last note: added docs. The skill tool loads them by name, listed or not.",
    );
  });
});
