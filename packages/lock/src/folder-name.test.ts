import { describe, expect, it } from "vitest";
import { skillFolderName } from "./folder-name.js";

describe("skillFolderName", () => {
  it.each([
    ["pdf", "pdf"],
    ["PDF Tools", "pdf-tools"],
    ["../../etc", "etc"],
    ["a/b\\c", "a-b-c"],
    ["..", "unnamed-skill"],
    ["", "unnamed-skill"],
    ["ünïcode", "n-code"],
    [".hidden.", "hidden"],
    ["my_skill.v2", "my_skill.v2"],
  ])("%j -> %j", (name, folder) => {
    expect(skillFolderName(name)).toBe(folder);
  });

  it("is always one safe segment, at most 255 characters", () => {
    for (const name of ["x".repeat(300), "/", "\0", "-.-", "a\nb"]) {
      const folder = skillFolderName(name);
      expect(folder).not.toMatch(/[/\\\0]/);
      expect([".", ".."]).not.toContain(folder);
      expect(folder.length).toBeGreaterThan(0);
      expect(folder.length).toBeLessThanOrEqual(255);
    }
  });
});
