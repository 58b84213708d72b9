import { symlink } from "node:fs/promises";
import { join } from "node:path";
import { SkillService } from "@skill/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { diskSource, skillText, tempDir, writeTree } from "./__fixtures__/skills.js";
import { skillTools } from "./tools.js";

const agent = { name: "build" };

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

  it("gives a bundled file's text through SkillService.readFile", async () => {
    const t = await tools();
    expect(await t.call("skill", { name: "pdf", file: "scripts/fill.py" })).toEqual({
      text: "print('filled')\n",
      isError: false,
    });
  });

  it("says a binary file is binary, with its size", async () => {
    expect(await (await tools()).call("skill", { name: "pdf", file: "logo.png" })).toEqual({
      text: '"logo.png" of the skill "pdf" is a binary file (12 bytes); it cannot be shown as text.',
      isError: false,
    });
  });

  it("refuses a path outside the skill, and one it does not list, in words", async () => {
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
    // A link out of the skill's folder is not one of its files.
    expect(await t.call("skill", { name: "pdf", file: "leak.txt" })).toEqual({
      text: 'The skill "pdf" has no file "leak.txt"; its files include logo.png, reference.md, scripts/fill.py.',
      isError: true,
    });
  });

  it("says a file over the size limit is too large, and reads nothing of it", async () => {
    await writeTree(root, { "pdf/big.txt": "a".repeat(10 * 1024 * 1024 + 1) });
    const result = await (await tools()).call("skill", { name: "pdf", file: "big.txt" });
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(
      /^"big\.txt" of the skill "pdf" is too large to read here \(.*10\.0 MiB.*\)\.$/,
    );
  });
});
