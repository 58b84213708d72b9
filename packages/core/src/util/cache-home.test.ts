import { homedir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { skillCacheHome } from "./cache-home.js";

describe("skillCacheHome", () => {
  it("is $XDG_CACHE_HOME/skill when that is absolute", () => {
    expect(skillCacheHome({ XDG_CACHE_HOME: "/var/cache/me", HOME: "/home/me" })).toBe("/var/cache/me/skill");
  });

  it("ignores a relative $XDG_CACHE_HOME, as the XDG rule says, and falls back to ~/.cache", () => {
    expect(skillCacheHome({ XDG_CACHE_HOME: "relative/cache", HOME: "/home/me" })).toBe(
      "/home/me/.cache/skill",
    );
    expect(skillCacheHome({ XDG_CACHE_HOME: "", HOME: "/home/me" })).toBe("/home/me/.cache/skill");
  });

  it("takes the home from HOME, else the operating system's", () => {
    expect(skillCacheHome({ HOME: "/home/me" })).toBe("/home/me/.cache/skill");
    expect(skillCacheHome({})).toBe(join(homedir(), ".cache", "skill"));
  });
});
