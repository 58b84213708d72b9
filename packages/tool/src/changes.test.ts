import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { SkillService } from "@skill/core";
import { discoverySources } from "@skill/discovery";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { skillText, substringSearch, tempDir, writeTree } from "./__fixtures__/skills.js";
import { skillTools } from "./tools.js";

const agent = { name: "build" };

describe("skillTools follows the registry", () => {
  let root: string;
  let remove: () => Promise<void>;
  let skillsDir: string;
  beforeEach(async () => {
    ({ dir: root, remove } = await tempDir());
    skillsDir = join(root, "project", ".agents", "skills");
    await writeTree(root, {
      "project/.git/HEAD": "ref: refs/heads/main\n",
      "project/.agents/skills/changing/SKILL.md": skillText("changing", "Before the edit."),
      "project/.agents/skills/leaving/SKILL.md": skillText("leaving", "About to be deleted."),
      "project/.agents/skills/staying/SKILL.md": skillText("staying", "Never touched."),
    });
  });
  afterEach(() => remove());

  async function load() {
    const service = new SkillService({
      sources: discoverySources({ cwd: join(root, "project"), home: join(root, "home"), env: {} }),
    });
    await service.discoverAndLoad();
    return service;
  }

  it("after update() adds, changes and removes a skill: loadable and findable at once, listed after refresh()", async () => {
    const service = await load();
    const search = substringSearch();
    const tools = skillTools(service, { agent, search });
    const heard: string[] = [];
    tools.onChange(() => heard.push("changed"));
    expect(tools.changes()).toBeUndefined();
    expect(search.replaced).toBe(1);
    const frozen = tools.definitions;
    const catalog = tools.catalog();

    await writeTree(skillsDir, { "arriving/SKILL.md": skillText("arriving", "Just added.") });
    await writeFile(join(skillsDir, "changing", "SKILL.md"), skillText("changing", "After the edit."));
    await rm(join(skillsDir, "leaving"), { recursive: true });
    await service.update(["arriving", "changing", "leaving"].map((n) => join(skillsDir, n, "SKILL.md")));

    // The definitions and the catalog hold still: the same objects, the same bytes.
    expect(tools.definitions).toBe(frozen);
    expect(tools.catalog()).toEqual(catalog);
    expect(frozen[0]?.description).toContain("Before the edit.");
    // The skill tool and the search follow at once: the new skill loads and is found.
    const loaded = await tools.call("skill", { name: "arriving" });
    expect(loaded.isError).toBe(false);
    expect(loaded.text).toContain("Do the arriving thing.");
    expect((await tools.call("skill", { name: "leaving" })).isError).toBe(true);
    expect(search.replaced).toBe(2);
    expect(search.held.map((s) => s.name)).toEqual(["arriving", "changing", "staying"]);

    expect(tools.changes()).toBe(
      "Skills changed since the last note: added arriving; changed changing; removed leaving. The skill tool loads them by name, listed or not. Load a changed skill again before following it.",
    );
    expect(tools.changes()).toBeUndefined();
    expect(heard).toEqual([]);

    // refresh() lays the list out again and tells the listeners; a second one has nothing to say.
    expect(tools.refresh()).toBe(true);
    expect(heard).toEqual(["changed"]);
    const description = tools.definitions[0]?.description ?? "";
    expect(description).toContain("<name>arriving</name>");
    expect(description).toContain("After the edit.");
    expect(description).not.toContain("leaving");
    expect(tools.refresh()).toBe(false);
    expect(heard).toEqual(["changed"]);
    // Nothing moved: the search is not fed again.
    await tools.call("skill", { name: "staying" });
    expect(search.replaced).toBe(2);
  });

  it("a change in frontmatter alone counts; a re-load of the same files does not", async () => {
    const service = await load();
    const tools = skillTools(service, { agent });
    await writeFile(
      join(skillsDir, "staying", "SKILL.md"),
      skillText("staying", "Never touched.", "license: MIT\n"),
    );
    await service.discoverAndLoad();
    expect(tools.changes()).toBe(
      "Skills changed since the last note: changed staying. The skill tool loads them by name, listed or not. Load a changed skill again before following it.",
    );
    await service.discoverAndLoad();
    expect(tools.changes()).toBeUndefined();
  });

  it("only changes() moves its starting point: calls, catalog reads and refresh() in between do not", async () => {
    const service = await load();
    const tools = skillTools(service, { agent });
    await rm(join(skillsDir, "leaving"), { recursive: true });
    await service.update([join(skillsDir, "leaving", "SKILL.md")]);
    tools.catalog();
    await tools.call("skill", { name: "staying" });
    tools.refresh();
    expect(tools.definitions[0]?.description).not.toContain("leaving");
    expect(tools.changes()).toBe("Skills changed since the last note: removed leaving.");
  });

  it("a skill that changed on disk after loading is refused with a sentence, not a throw", async () => {
    const service = await load();
    const tools = skillTools(service, { agent });
    await writeFile(join(skillsDir, "changing", "SKILL.md"), "no frontmatter any more\n");
    const result = await tools.call("skill", { name: "changing" });
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(
      /^The skill "changing" changed since it was listed and was not loaded \(.+\)\. It may load once the skills are reloaded; go on without it for now\.$/s,
    );
  });
});
