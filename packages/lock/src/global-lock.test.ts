import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { removeTempDirs, tempDir } from "@skill/test-utils";
import { afterEach, describe, expect, it } from "vitest";
import { type GlobalLock, globalLockPath, readGlobalLock, writeGlobalLock } from "./global-lock.js";

const temp = () => tempDir("skill-lock-global-");
afterEach(removeTempDirs);

// As skills 1.7.4 writes it (no final newline), with a field gh skill adds.
const VERCEL = `{
  "version": 3,
  "skills": {
    "pdf": {
      "source": "owner/repo",
      "sourceType": "github",
      "sourceUrl": "https://github.com/owner/repo.git",
      "skillPath": "skills/pdf/SKILL.md",
      "skillFolderHash": "0123abcd",
      "installedAt": "2026-11-02T10:00:00.000Z",
      "updatedAt": "2026-11-03T10:00:00.000Z",
      "pluginName": "docs",
      "ghPinned": true
    }
  },
  "dismissed": {
    "findSkillsPrompt": true
  },
  "lastSelectedAgents": [
    "claude-code",
    "codex"
  ]
}`;

describe("global lock", () => {
  it("lives in ~/.agents, or under $XDG_STATE_HOME/skills when it is set", () => {
    expect(globalLockPath({ home: "/h" })).toBe("/h/.agents/.skill-lock.json");
    expect(globalLockPath({ home: "/h", env: { XDG_STATE_HOME: "/s" } })).toBe("/s/skills/.skill-lock.json");
    expect(globalLockPath({ home: "/h", env: { XDG_STATE_HOME: "" } })).toBe("/h/.agents/.skill-lock.json");
  });

  it("round-trips skills' bytes, unknown fields included", async () => {
    const file = join(await temp(), ".skill-lock.json");
    await writeFile(file, VERCEL);
    const lock = (await readGlobalLock(file)) as GlobalLock;
    expect(lock.skills.pdf?.ghPinned).toBe(true);
    expect(lock.lastSelectedAgents).toEqual(["claude-code", "codex"]);
    await writeGlobalLock(file, lock);
    expect(await readFile(file, "utf8")).toBe(VERCEL);
  });

  it("writes a changed entry in place, keeping the others' fields", async () => {
    const file = join(await temp(), ".skill-lock.json");
    await writeFile(file, VERCEL);
    const lock = (await readGlobalLock(file)) as GlobalLock;
    const pdf = lock.skills.pdf as NonNullable<GlobalLock["skills"]["pdf"]>;
    await writeGlobalLock(file, {
      ...lock,
      skills: { ...lock.skills, pdf: { ...pdf, updatedAt: "2026-12-01T00:00:00.000Z" } },
    });
    const text = await readFile(file, "utf8");
    expect(text).toBe(VERCEL.replace("2026-11-03T10:00:00.000Z", "2026-12-01T00:00:00.000Z"));
  });

  it.each([
    ['{"version":2,"skills":{}}', "'version' should be 3"],
    ['{"version":3,"skills":[]}', "'skills' should be an object, found a list"],
    ['{"version":3,"skills":{"x":{"sourceType":"git"}}}', "'skills.x.source' should be a string"],
    [
      '{"version":3,"skills":{},"lastSelectedAgents":"codex"}',
      "'lastSelectedAgents' should be a list of strings",
    ],
    ['{"version":3,"skills":{},"dismissed":[]}', "'dismissed' should be an object"],
    ["", "not valid JSON"],
  ])("refuses %s naming the file", async (text, message) => {
    const file = join(await temp(), ".skill-lock.json");
    await writeFile(file, text);
    const error = await readGlobalLock(file).catch((e: unknown) => e);
    expect(error).toMatchObject({ path: file });
    expect((error as Error).message).toContain(`Broken global lock ${file}`);
    expect((error as Error).message).toContain(message);
  });

  it("gives undefined for a missing file", async () => {
    expect(await readGlobalLock(join(await temp(), "none.json"))).toBeUndefined();
  });
});
