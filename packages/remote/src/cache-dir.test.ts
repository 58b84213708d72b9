import { homedir } from "node:os";
import { join } from "node:path";
import { SkillError } from "@skill/core";
import { describe, expect, it } from "vitest";
import { defaultCacheDir, urlToDirName } from "./cache-dir.js";

describe("urlToDirName", () => {
  it("is a readable slug plus a short hash", () => {
    expect(urlToDirName("https://example.com/.well-known/skills/")).toMatch(
      /^example\.com-\.well-known-skills-[0-9a-f]{12}$/,
    );
    expect(urlToDirName("http://127.0.0.1:8080/")).toMatch(/^127\.0\.0\.1-8080-[0-9a-f]{12}$/);
  });

  it("names the same pack the same, whatever the trailing slashes, query, fragment or host case", () => {
    const name = urlToDirName("https://example.com/skills/");
    for (const url of [
      "https://example.com/skills",
      "https://example.com/skills//",
      "https://EXAMPLE.com/skills/",
      "https://example.com:443/skills/",
      "https://example.com/skills/?x=1#top",
    ]) {
      expect(urlToDirName(url), url).toBe(name);
    }
  });

  it("names distinct packs distinctly, even when their slugs collide", () => {
    const urls = [
      "https://example.com/skills/",
      "http://example.com/skills/",
      "https://example.com/Skills/",
      "https://example.com/skills-/",
      "https://example.com/skills/a/",
      "https://example.com:8443/skills/",
      "https://example.com/a-b/",
      "https://example.com/a/b/",
      "https://example.com/a%20b/",
      `https://example.com/${"x".repeat(300)}/1`,
      `https://example.com/${"x".repeat(300)}/2`,
    ];
    const names = urls.map(urlToDirName);
    expect(new Set(names).size).toBe(urls.length);
  });

  it("stays filesystem-safe and bounded on any URL", () => {
    for (const url of [
      "https://example.com/../../etc/",
      "https://example.com/%2e%2e/%00/",
      "https://example.com/a\\b/c:d/",
      `https://example.com/${"ü".repeat(500)}/`,
      "https://con.example/",
      "https://xn--bcher-kva.example/",
    ]) {
      const name = urlToDirName(url);
      expect(name, url).toMatch(/^[a-z0-9_][a-z0-9._-]*-[0-9a-f]{12}$/);
      expect(name.length, url).toBeLessThanOrEqual(73);
      expect(name, url).not.toMatch(/^(con|prn|aux|nul)(\.|-|$)/);
    }
  });

  it("throws INVALID_URL for what is not an http(s) URL", () => {
    for (const url of ["", "skills", "ftp://example.com/", "javascript:alert(1)", "file:///etc/"]) {
      let error: unknown;
      try {
        urlToDirName(url);
      } catch (e) {
        error = e;
      }
      expect(SkillError.isInstance(error) && error.code, url).toBe("INVALID_URL");
    }
  });
});

describe("defaultCacheDir", () => {
  it("uses $XDG_CACHE_HOME when it is absolute", () => {
    expect(defaultCacheDir({ XDG_CACHE_HOME: "/var/cache/me", HOME: "/home/me" })).toBe(
      "/var/cache/me/skill/remote",
    );
  });

  it("falls back to ~/.cache, home from HOME, else the OS", () => {
    expect(defaultCacheDir({ XDG_CACHE_HOME: "relative/cache", HOME: "/home/me" })).toBe(
      "/home/me/.cache/skill/remote",
    );
    expect(defaultCacheDir({ HOME: "/home/me" })).toBe("/home/me/.cache/skill/remote");
    expect(defaultCacheDir({})).toBe(join(homedir(), ".cache", "skill", "remote"));
  });
});
