import { symlink } from "node:fs/promises";
import { join } from "node:path";
import { SkillService } from "@skill/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { diskSource, skillText, tempDir, writeTree } from "./__fixtures__/skills.js";
import { skillTools } from "./tools.js";

const agent = { name: "build" };
/** `SkillService.readFile` (contract 3) is what the file tool reads through. */
const hasReadFile = typeof (SkillService.prototype as { readFile?: unknown }).readFile === "function";

describe("skill { name, file }", () => {
  let root: string;
  let remove: () => Promise<void>;
  beforeEach(async () => {
    ({ dir: root, remove } = await tempDir());
    await writeTree(root, {
      "pdf/SKILL.md": skillText("pdf", "Fill PDF forms.", "", "Run `scripts/fill.py`.\n"),
      "pdf/scripts/fill.py": "print('filled')\n",
      "pdf/reference.md": "# Reference\n",
      "pdf/logo.png": new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]),
      "secret.txt": "outside the skill\n",
    });
    await symlink(join(root, "secret.txt"), join(root, "pdf", "leak.txt"));
  });
  afterEach(() => remove());

  async function tools(service = new SkillService({ sources: [diskSource("project:/x", root, ["pdf"])] })) {
    await service.discoverAndLoad();
    return skillTools(service, { agent });
  }

  it("lists the bundled files in the loaded skill", async () => {
    const result = await (await tools()).call("skill", { name: "pdf" });
    expect(result.isError).toBe(false);
    expect(result.text).toContain(`<file>${join(root, "pdf", "scripts/fill.py")}</file>`);
    expect(result.text).toContain("Run `scripts/fill.py`.");
  });

  it.runIf(hasReadFile)("gives a bundled file's text through SkillService.readFile", async () => {
    const t = await tools();
    expect(await t.call("skill", { name: "pdf", file: "scripts/fill.py" })).toEqual({
      text: "print('filled')\n",
      isError: false,
    });
  });

  it.runIf(hasReadFile)("says a binary file is binary, with its size", async () => {
    expect(await (await tools()).call("skill", { name: "pdf", file: "logo.png" })).toEqual({
      text: '"logo.png" of the skill "pdf" is a binary file (12 bytes); it cannot be shown as text.',
      isError: false,
    });
  });

  it.runIf(hasReadFile)("refuses a path outside the skill, and one it does not list, in words", async () => {
    const t = await tools();
    expect(await t.call("skill", { name: "pdf", file: "../secret.txt" })).toEqual({
      text: '"../secret.txt" is not a path inside the skill "pdf": give the file\'s path relative to the skill\'s folder, as the loaded skill lists it.',
      isError: true,
    });
    const missing = await t.call("skill", { name: "pdf", file: "scripts/other.py" });
    expect(missing.isError).toBe(true);
    expect(missing.text).toBe(
      'The skill "pdf" has no file "scripts/other.py"; its files include logo.png, reference.md, scripts/fill.py.',
    );
    const leak = await t.call("skill", { name: "pdf", file: "leak.txt" });
    expect(leak.isError).toBe(true);
    expect(leak.text).not.toContain("outside the skill");
  });

  it("without SkillService.readFile, says why a file cannot be read", async () => {
    class Older extends SkillService {
      readonly readFile = undefined;
    }
    const t = await tools(new Older({ sources: [diskSource("project:/x", root, ["pdf"])] }));
    expect(await t.call("skill", { name: "pdf", file: "reference.md" })).toEqual({
      text: '"reference.md" of the skill "pdf" could not be read: Bundled files cannot be read: this @skill/core has no SkillService.readFile (update @skill/core)',
      isError: true,
    });
  });
});
