import { SkillError, SkillService } from "@skill/core";
import { formatSkillContent } from "@skill/format";
import { describe, expect, it } from "vitest";
import { countingSource, fixedSearch, substringSearch } from "./__fixtures__/skills.js";
import { SEARCH_TOOL, SKILL_TOOL } from "./definitions.js";
import { DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT } from "./schema.js";
import { skillTools } from "./tools.js";

const agent = { name: "build" };

async function serviceOf(...sources: ReturnType<typeof countingSource>[]): Promise<SkillService> {
  const service = new SkillService({ sources });
  await service.discoverAndLoad();
  return service;
}

const few = countingSource("project:/repo/.agents/skills", [
  { name: "pdf-forms", description: "Fill in PDF forms and flatten them." },
  { name: "pdf", description: "Read and merge PDF files." },
  { name: "release-notes", description: "Write release notes from the git log." },
  { name: "deploy", description: "Deploy to production.", extra: "disable-model-invocation: true\n" },
]);

describe("skillTools: the skill tool", () => {
  it("offers skill with its catalog, and no skill_search when everything is listed", async () => {
    const tools = skillTools(await serviceOf(few), { agent, search: substringSearch() });
    const [skill, ...rest] = tools.definitions;
    expect(rest).toEqual([]);
    expect(skill?.name).toBe(SKILL_TOOL);
    expect(skill?.description).toContain("<name>pdf-forms</name>");
    expect(skill?.description).toContain("<description>Fill in PDF forms and flatten them.</description>");
    expect(skill?.description).not.toContain("<location>");
    expect(skill?.description).not.toContain("deploy"); // user-only
    expect(skill?.inputSchema).toMatchObject({
      type: "object",
      required: ["name"],
      additionalProperties: false,
    });
    expect(tools.catalog()).toMatchObject({ omitted: [], nameOnly: [], hidden: ["deploy"] });
  });

  it("returns the <skill_content> block of read + files, from the same bytes", async () => {
    const service = await serviceOf(few);
    const tools = skillTools(service, { agent });
    const result = await tools.call("skill", { name: "pdf" });
    expect(result.isError).toBe(false);
    const expected = formatSkillContent(await service.read("pdf", agent), {
      files: await service.files("pdf", agent),
    });
    expect(result.text).toBe(expected);
    expect(result.text).toContain("Do the pdf thing.");
  });

  it("says which name was meant, from the names it may load", async () => {
    const tools = skillTools(await serviceOf(few), { agent });
    expect(await tools.call("skill", { name: "pdf-form" })).toEqual({
      text: 'No skill named "pdf-form"; similar: pdf-forms, pdf.',
      isError: true,
    });
    expect(await tools.call("skill", { name: "relase-notes" })).toEqual({
      text: 'No skill named "relase-notes"; similar: release-notes.',
      isError: true,
    });
    const none = await tools.call("skill", { name: "kubernetes" });
    expect(none).toEqual({
      text: `No skill named "kubernetes". The skills you can load are listed in the skill tool's description.`,
      isError: true,
    });
  });

  it("loads a skill keyed by its folder by its key or by the label its catalog shows", async () => {
    const source = {
      id: "project:/repo/.claude/skills",
      async scan() {
        const entry = {
          location: "mem:claude/pdf-tools/SKILL.md",
          async read() {
            return "---\nname: PDF Tools\ndescription: Fill PDF forms.\n---\nFill each field.\n";
          },
          async listFiles() {
            return [];
          },
        };
        return { entries: [entry], dirs: [] };
      },
    };
    const service = new SkillService({ sources: [source], identity: "folder" });
    await service.discoverAndLoad();
    const tools = skillTools(service, { agent });
    expect(tools.definitions[0]?.description).toContain("<name>pdf-tools (PDF Tools)</name>");
    for (const name of ["pdf-tools", "pdf-tools (PDF Tools)"]) {
      const result = await tools.call("skill", { name });
      expect(result.isError, name).toBe(false);
      expect(result.text).toContain("Fill each field.");
    }
    expect((await tools.call("skill", { name: "pdf-tools (Other)" })).isError).toBe(true);
    expect((await tools.call("skill", { name: "PDF Tools" })).isError).toBe(true);
  });

  it("treats a user-only skill (disable-model-invocation) as no skill at all", async () => {
    const tools = skillTools(await serviceOf(few), { agent });
    const before = few.reads.get("deploy");
    const result = await tools.call("skill", { name: "deploy" });
    expect(result.isError).toBe(true);
    expect(result.text.startsWith('No skill named "deploy"')).toBe(true);
    expect(few.reads.get("deploy")).toBe(before); // nothing read
    const near = await tools.call("skill", { name: "deplo" });
    expect(near.text).not.toContain("similar: deploy");
  });

  it("checks input against the schema and says what is wrong", async () => {
    const tools = skillTools(await serviceOf(few), { agent });
    const cases: [unknown, string][] = [
      [undefined, "expected an object, found nothing"],
      ["pdf", 'expected an object, found "pdf"'],
      [[1], "expected an object, found a list"],
      [{}, '"name" is missing'],
      [{ name: 3 }, '"name" must be a string, found 3'],
      [{ name: "" }, '"name" is empty'],
      [{ name: "pdf", path: "x" }, 'unknown field "path"'],
      [{ name: "pdf", file: 1 }, '"file" must be a string, found 1'],
    ];
    for (const [input, what] of cases) {
      const result = await tools.call("skill", input);
      expect(result).toEqual({
        text: `Invalid input for skill: ${what}. Expected {"name": string, "file"?: string}.`,
        isError: true,
      });
    }
  });

  it("answers an unknown tool, and never throws", async () => {
    const service = await serviceOf(few);
    const tools = skillTools(service, { agent });
    expect(await tools.call("skill_search", { query: "pdf" })).toEqual({
      text: 'No tool named "skill_search"; the skill tools are skill.',
      isError: true,
    });
    // A service that fails underneath: still a result.
    class Broken extends SkillService {
      override async read(): Promise<never> {
        throw new TypeError("disk on fire");
      }
    }
    const broken = new Broken({ sources: [few] });
    await broken.discoverAndLoad();
    const result = await skillTools(broken, { agent }).call("skill", { name: "pdf" });
    expect(result).toEqual({ text: 'The skill "pdf" could not be loaded: disk on fire', isError: true });
  });

  it("a cancelled call reads nothing and says so", async () => {
    const service = await serviceOf(few);
    const tools = skillTools(service, { agent });
    const before = few.reads.get("pdf");
    const controller = new AbortController();
    controller.abort();
    expect(await tools.call("skill", { name: "pdf" }, { signal: controller.signal })).toEqual({
      text: 'Loading the skill "pdf" was cancelled.',
      isError: true,
    });
    expect(few.reads.get("pdf")).toBe(before);
  });

  it("refuses options that cannot work", () => {
    const service = new SkillService();
    for (const [options, field] of [
      [{}, "agent"],
      [{ agent: { name: 1 } }, "agent"],
      [{ agent, search: {} }, "search"],
      [{ agent, confirm: true }, "confirm"],
      [{ agent, style: "json" }, "style"],
      [{ agent, budget: -1 }, "budget"],
    ] as const) {
      let error: unknown;
      try {
        skillTools(service, options as never);
      } catch (e) {
        error = e;
      }
      expect(SkillError.isInstance(error) && error.code === "INVALID_FIELD" && error.field).toBe(field);
    }
  });
});

describe("skillTools: skill_search", () => {
  const many = countingSource(
    "project:/repo/.agents/skills",
    Array.from({ length: 300 }, (_, i) => ({
      name: `skill-${String(i).padStart(3, "0")}`,
      description: `Handles task ${i} ${i % 10 === 0 ? "with PDF forms" : "with spreadsheets"}, in detail.`,
    })),
  );

  it("is offered when the catalog leaves skills out, and returns names with descriptions", async () => {
    const search = substringSearch();
    const tools = skillTools(await serviceOf(many), { agent, search, budget: 4000 });
    expect(tools.definitions.map((d) => d.name)).toEqual([SKILL_TOOL, SEARCH_TOOL]);
    expect(search.held).toHaveLength(300); // fed all(agent) through replace()
    const result = await tools.call("skill_search", { query: "pdf forms", limit: 3 });
    expect(result.isError).toBe(false);
    expect(result.text).toBe(
      [
        '3 skills match "pdf forms", best first:',
        "<available_skills>",
        ...["000", "010", "020"].flatMap((n) => [
          "  <skill>",
          `    <name>skill-${n}</name>`,
          `    <description>Handles task ${Number(n)} with PDF forms, in detail.</description>`,
          "  </skill>",
        ]),
        "</available_skills>",
        "Load one with the skill tool and its name.",
      ].join("\n"),
    );
  });

  it("defaults to 8 results, takes at most 20, and says when nothing matches", async () => {
    const tools = skillTools(await serviceOf(many), {
      agent,
      search: substringSearch(),
      budget: 4000,
      style: "markdown",
    });
    const eight = await tools.call("skill_search", { query: "spreadsheets" });
    expect(eight.text.split("\n").filter((l) => l.startsWith("- **"))).toHaveLength(DEFAULT_SEARCH_LIMIT);
    const twenty = await tools.call("skill_search", { query: "spreadsheets", limit: MAX_SEARCH_LIMIT });
    expect(twenty.text.split("\n").filter((l) => l.startsWith("- **"))).toHaveLength(20);
    expect(await tools.call("skill_search", { query: "spreadsheets", limit: 21 })).toEqual({
      text: 'Invalid input for skill_search: "limit" must be from 1 to 20, found 21. Expected {"query": string, "limit"?: number}.',
      isError: true,
    });
    expect((await tools.call("skill_search", { query: "x", limit: 2.5 })).text).toContain(
      '"limit" must be a whole number, found 2.5',
    );
    expect(await tools.call("skill_search", { query: "kubernetes" })).toEqual({
      text: `No skill matches "kubernetes". Try other words, or pick a skill from the skill tool's description.`,
      isError: false,
    });
  });

  it("drops hits the agent may not load, even from a search that holds them", async () => {
    const service = await serviceOf(few);
    const search = fixedSearch(["nope", "deploy", "pdf", "pdf", "release-notes"]);
    const tools = skillTools(service, { agent, search, budget: 60 });
    expect(tools.definitions.map((d) => d.name)).toContain(SEARCH_TOOL);
    const result = await tools.call("skill_search", { query: "anything" });
    expect(result.text).toContain("<name>pdf</name>");
    expect(result.text).toContain("<name>release-notes</name>");
    expect(result.text).not.toContain("deploy");
    expect(result.text).not.toContain("nope");
    expect(result.text.startsWith('2 skills match "anything"')).toBe(true);
  });

  it("reports a search that fails, as a result", async () => {
    const search = {
      search: () => {
        throw new Error("index corrupt");
      },
    };
    const tools = skillTools(await serviceOf(many), { agent, search, budget: 4000 });
    expect(await tools.call("skill_search", { query: "pdf" })).toEqual({
      text: "Searching the skills failed: index corrupt",
      isError: true,
    });
  });

  it("points an unknown name at skill_search when it is offered", async () => {
    const tools = skillTools(await serviceOf(many), { agent, search: substringSearch(), budget: 4000 });
    expect((await tools.call("skill", { name: "kubernetes" })).text).toBe(
      'No skill named "kubernetes". Use skill_search to find one by what it does.',
    );
  });
});
