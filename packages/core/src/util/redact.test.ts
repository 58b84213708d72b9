import { describe, expect, it } from "vitest";
import { redactText, redactUrl, withoutCredentials } from "../index.js";

describe("redactUrl", () => {
  it.each([
    ["https://me:hunter2@example.com/skills/", "https://***@example.com/skills/"],
    ["https://token@example.com/", "https://***@example.com/"],
    ["https://me:p@ss@example.com/x", "https://***@example.com/x"],
    ["https://me:pa/ss@example.com/x", "https://***@example.com/x"],
    ["https://example.com/@user/skills/", "https://example.com/@user/skills/"],
    [
      "https://example.com/index.json?team=a&token=abc&X-Amz-Signature=f00&api_key=k#top",
      "https://example.com/index.json?team=a&token=***&X-Amz-Signature=***&api_key=***#top",
    ],
    ["https://cdn.example.com/a.tar.gz?sig=abc&se=2030", "https://cdn.example.com/a.tar.gz?sig=***&se=2030"],
    ["https://example.com/", "https://example.com/"],
  ])("%s", (url, shown) => {
    expect(redactUrl(url)).toBe(shown);
  });

  it("finds URLs in free text, quoted or not", () => {
    expect(
      redactText('Invalid URL: "http://me:hunter2@x.test/" and https://x.test/i.json?password=p, then more'),
    ).toBe('Invalid URL: "http://***@x.test/" and https://x.test/i.json?password=***, then more');
  });
});

describe("withoutCredentials", () => {
  it("drops an http(s) URL's userinfo, and keeps everything else", () => {
    expect(withoutCredentials("https://x-access-token:ghp_abc@github.com/o/r.git")).toBe(
      "https://github.com/o/r.git",
    );
    expect(withoutCredentials("http://token@git.example.test/o/r.git#v1")).toBe(
      "http://git.example.test/o/r.git#v1",
    );
    expect(withoutCredentials("https://github.com/o/r.git")).toBe("https://github.com/o/r.git");
    expect(withoutCredentials("ssh://git@github.com/o/r.git")).toBe("ssh://git@github.com/o/r.git");
    expect(withoutCredentials("git@github.com:o/r.git")).toBe("git@github.com:o/r.git");
    expect(withoutCredentials("../repo")).toBe("../repo");
  });
});
