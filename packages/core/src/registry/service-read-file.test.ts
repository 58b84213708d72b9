import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SkillError } from "../spec/errors.js";
import type { AgentInfo, PermissionPolicy } from "../spec/service-options.js";
import type { SkillSource } from "../spec/skill-source.js";
import { memorySource } from "./memory-source.js";
import { SkillService } from "./service.js";

let root: string;
let service: SkillService;
const agent: AgentInfo = { name: "review" };
const policy: PermissionPolicy = {
  evaluate: (_agent, _permission, pattern) => (pattern.startsWith("secret") ? "deny" : "allow"),
};

async function skill(folder: string, name: string, files: Record<string, string> = {}): Promise<void> {
  const dir = join(root, "skills", folder);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, "SKILL.md"), `---\nname: ${name}\ndescription: About ${name}\n---\n# ${name}\n`);
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(dir, path, ".."), { recursive: true });
    await writeFile(join(dir, path), text);
  }
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "skill-core-read-file-"));
  await writeFile(join(root, "outside.txt"), "OUTSIDE BYTES");
  await skill("pdf", "pdf", { "reference.md": "pdf reference", "scripts/fill.py": "print('fill')" });
  await skill("sibling", "sibling", { "private.md": "SIBLING BYTES" });
  await skill("secret", "secret", { "key.txt": "DENIED BYTES" });
  await skill("pdf/nested", "nested", { "inner.md": "NESTED BYTES" });
  const pdf = join(root, "skills", "pdf");
  await symlink("/etc/passwd", join(pdf, "passwd"));
  await symlink(join(root, "skills", "sibling", "private.md"), join(pdf, "sibling.md"));
  await symlink(join(root, "outside.txt"), join(pdf, "outside.txt"));
  await symlink("reference.md", join(pdf, "alias.md"));
  const source: SkillSource = {
    id: "project:skills",
    async scan() {
      const entries = ["pdf", "pdf/nested", "secret", "sibling"].map((f) => ({
        location: join(root, "skills", f, "SKILL.md"),
      }));
      return { entries, dirs: [join(root, "skills")] };
    },
  };
  service = new SkillService({ sources: [source], permission: policy });
  await service.discoverAndLoad();
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function refusal(path: string, name = "pdf", who: AgentInfo | undefined = agent): Promise<SkillError> {
  try {
    const bytes = await service.readFile(name, path, who);
    throw new Error(`read ${bytes.byteLength} bytes of ${path}`);
  } catch (error) {
    if (SkillError.isInstance(error)) return error;
    throw error;
  }
}

describe("SkillService.readFile", () => {
  it("reads a listed file, also through a link that stays inside", async () => {
    expect(Buffer.from(await service.readFile("pdf", "scripts/fill.py", agent)).toString()).toBe(
      "print('fill')",
    );
    expect(Buffer.from(await service.readFile("pdf", "alias.md", agent)).toString()).toBe("pdf reference");
    expect(await service.files("pdf", agent)).toEqual(["alias.md", "reference.md", "scripts/fill.py"]);
  });

  it("refuses .. and absolute paths with UNSAFE_PATH", async () => {
    for (const path of [
      "../sibling/private.md",
      "scripts/../../sibling/private.md",
      "/etc/passwd",
      join(root, "outside.txt"),
    ]) {
      expect((await refusal(path)).code).toBe("UNSAFE_PATH");
    }
  });

  it("refuses links to /etc/passwd, to a sibling skill or outside, and files of a nested skill", async () => {
    for (const path of ["passwd", "sibling.md", "outside.txt", "nested/inner.md", "nested/SKILL.md"]) {
      const error = await refusal(path);
      expect(["NOT_FOUND", "UNSAFE_PATH"]).toContain(error.code);
      expect(error.message).not.toMatch(/BYTES|root:/);
    }
  });

  it("refuses a file that files() does not list with NOT_FOUND", async () => {
    expect((await refusal("missing.md")).code).toBe("NOT_FOUND");
  });

  it("gives SKILL.md's raw bytes, the ones read() parses", async () => {
    const bytes = Buffer.from(await service.readFile("pdf", "SKILL.md", agent)).toString();
    expect(bytes).toBe("---\nname: pdf\ndescription: About pdf\n---\n# pdf\n");
    expect((await refusal("SKILL.md", "secret")).code).toBe("NOT_FOUND");
  });

  it("treats a denied skill exactly like a missing one", async () => {
    const denied = await refusal("key.txt", "secret");
    const missing = await refusal("key.txt", "no-such-skill");
    expect(denied.code).toBe("NOT_FOUND");
    expect(denied.message.replace("secret", "X")).toBe(missing.message.replace("no-such-skill", "X"));
    expect(denied.message).not.toContain("secret,");
    // Without an agent, no filtering.
    expect(Buffer.from(await service.readFile("secret", "key.txt")).toString()).toBe("DENIED BYTES");
  });

  it("reads the files of a skill that is not on disk only through its source", async () => {
    const memory = new SkillService({
      sources: [
        memorySource("builtin", [
          { location: "builtin:pdf", text: "---\nname: pdf\ndescription: d\n---\n", files: ["a.md"] },
          {
            location: "builtin:form",
            text: "---\nname: form\ndescription: d\n---\n",
            contents: { "t.md": "form text" },
          },
        ]),
      ],
    });
    await memory.discoverAndLoad();
    expect(await memory.files("pdf")).toEqual(["a.md"]);
    await expect(memory.readFile("pdf", "../a.md")).rejects.toMatchObject({ code: "UNSAFE_PATH" });
    // Listed but with no bytes to give: the source reads none.
    await expect(memory.readFile("pdf", "a.md")).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(memory.readFile("pdf", "b.md")).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect(await memory.files("form")).toEqual(["t.md"]);
    expect(Buffer.from(await memory.readFile("form", "t.md")).toString()).toBe("form text");
  });

  it("never lists nor reads a folder on disk for a memory skill whose location reads like a path", async () => {
    // A real folder with files at the path the location names.
    await skill("on-disk", "on-disk", { "secret.md": "from disk" });
    const location = join(root, "skills", "on-disk", "SKILL.md");
    const memory = new SkillService({
      sources: [memorySource("gen", [{ location, text: "---\nname: generated\ndescription: d\n---\n" }])],
    });
    await memory.discoverAndLoad();
    expect(await memory.files("generated")).toEqual([]);
    await expect(memory.readFile("generated", "secret.md")).rejects.toMatchObject({ code: "NOT_FOUND" });
  });
});
