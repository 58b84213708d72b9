import type { SkillMetadata } from "@skill/core";
import { describe, expect, it } from "vitest";
import { escapeHtml, renderPage, scriptJson } from "./page-html.js";
import { pageIndex } from "./page-search.js";
import { indexUrl, installCommands, type PageSkill, URL_PLACEHOLDER } from "./page-skills.js";

function skill(name: string, description: string): SkillMetadata {
  return {
    name,
    description,
    location: `/pack/${name}/SKILL.md`,
    frontmatter: { name, description },
    origin: "manual",
    modelInvocable: true,
    userInvocable: true,
  };
}

describe("the pack's page", () => {
  it("keeps JSON data inside its <script>: no <, >, & or line separator is written raw", () => {
    const value = {
      words: [
        ["</script><!--", [0]],
        ["a\u2028b\u2029c&d>", [1]],
      ],
    };
    const text = scriptJson(value);
    expect(text).not.toMatch(/[<>&\u2028\u2029]/);
    expect(JSON.parse(text)).toEqual(value);
  });

  it("escapes text for content and quoted attributes", () => {
    expect(escapeHtml(`<img src=x onerror="a('1')">&`)).toBe(
      "&lt;img src=x onerror=&quot;a(&#39;1&#39;)&quot;&gt;&amp;",
    );
  });

  it("installs from index.json below --base-url, or names a placeholder", () => {
    expect(indexUrl("https://example.com/team")).toBe("https://example.com/team/index.json");
    expect(indexUrl("https://example.com/")).toBe("https://example.com/index.json");
    expect(indexUrl(undefined)).toBe(`${URL_PLACEHOLDER}/index.json`);
    // Vercel's skills looks for an index only at a site's well-known folders; elsewhere it
    // downloads a skill's archive or lone SKILL.md.
    expect(installCommands("https://example.com/team/index.json", "pdf", "pdf.tar.gz")).toEqual([
      "skill add https://example.com/team/index.json pdf",
      "npx skills add https://example.com/team/pdf.tar.gz",
    ]);
    expect(
      installCommands("https://example.com/.well-known/agent-skills/index.json", "pdf", "pdf.tar.gz"),
    ).toEqual([
      "skill add https://example.com/.well-known/agent-skills/index.json pdf",
      "npx skills add https://example.com --skill pdf",
    ]);
    expect(installCommands(`${URL_PLACEHOLDER}/index.json`, "it's", "it's/SKILL.md")).toEqual([
      `skill add <pack-url>/index.json 'it'\\''s'`,
      `npx skills add <pack-url>/'it'\\''s/SKILL.md'`,
    ]);
    // A v0.1 entry (no artifact) served elsewhere: skills has no way to it, so no command.
    expect(installCommands("https://example.com/team/index.json", "pdf")).toEqual([
      "skill add https://example.com/team/index.json pdf",
    ]);
  });

  it("indexes each word for the skills @skill/search finds for it, and those that hold it", () => {
    const skills = [
      skill("pdf-forms", "Fill in PDF forms."),
      skill("changelog", "Keep a changelog."),
      skill("__proto__", "A name that is no object key here."),
    ];
    const words = new Map(pageIndex(skills).words);
    expect(words.get("pdf")).toEqual([0]);
    expect(words.get("form")).toBeUndefined(); // words as written; the script matches prefixes
    expect(words.get("forms")).toEqual([0]);
    expect(words.get("changelog")).toEqual([1]);
    expect(words.get("proto")).toEqual([2]);
  });

  it("renders a skill's text as text, a placeholder note without --base-url", () => {
    const html = renderPage({
      title: "<pack>",
      skills: [
        {
          name: "x",
          description: "</script><script>alert(1)</script>\u202e",
          files: ["SKILL.md"],
          capabilities: { error: "<b>no</b>" },
          findings: [],
          install: installCommands(`${URL_PLACEHOLDER}/index.json`, "x", "x/SKILL.md"),
          metadata: skill("x", "d"),
        },
      ],
      index: { words: [] },
      placeholder: true,
    });
    expect(html).toContain("&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;\\u202e");
    expect(html).toContain("<h1>&lt;pack&gt;</h1>");
    expect(html).toContain("not audited: &lt;b&gt;no&lt;/b&gt;");
    expect(html).toContain('id="placeholder-note"');
    expect(html.match(/<script\b/g)).toHaveLength(2);
  });

  it("lists the audit's findings, errors first, as text, and no row when there are none", () => {
    const page = (findings: PageSkill["findings"]) =>
      renderPage({
        title: "p",
        skills: [
          {
            name: "x",
            description: "d",
            files: ["SKILL.md"],
            capabilities: { error: "n/a" },
            findings,
            install: [],
            metadata: skill("x", "d"),
          },
        ],
        index: { words: [] },
        placeholder: false,
      });
    expect(page([])).not.toContain("<dt>Findings</dt>");
    const html = page([
      { rule: "hidden-unicode", severity: "warning", path: "notes/<a>.md", message: "U+200B <b>here</b>" },
      {
        rule: "description-injection",
        severity: "error",
        path: "SKILL.md",
        line: 3,
        message: "talks to the model",
      },
    ]);
    const row = html.slice(html.indexOf("<dt>Findings</dt>"), html.indexOf("<dt>Install</dt>"));
    expect(row.indexOf("description-injection")).toBeLessThan(row.indexOf("hidden-unicode"));
    expect(row).toContain('<li class="error"><span class="sev">error</span> talks to the model');
    expect(row).toContain("SKILL.md:3 · description-injection");
    expect(row).toContain("U+200B &lt;b&gt;here&lt;/b&gt;");
    expect(row).toContain("notes/&lt;a&gt;.md · hidden-unicode");
  });
});
