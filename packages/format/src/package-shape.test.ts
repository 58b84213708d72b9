import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { skill } from "./__fixtures__/skills.js";

// Runs against the built package (build before testing), as a consumer would load it.
const dist = fileURLToPath(new URL("../dist/", import.meta.url));
const require = createRequire(import.meta.url);
type Api = typeof import("./index.js");

function exercise(api: Api): void {
  const skills = [skill("s1", "d1 & more"), skill("s2", "d2")];
  expect(api.fmt(skills, { verbose: false })).toBe("- **s1**: d1 & more\n- **s2**: d2");
  expect(api.escapeXml("<&>")).toBe("&lt;&amp;&gt;");
  expect(api.formatCatalog(skills, { style: "markdown", budget: 50 })).toEqual({
    text: "## Available Skills\n- **s1**: d1 & more\n- **s2**",
    included: ["s1", "s2"],
    omitted: [],
    truncated: ["s2"],
    nameOnly: ["s2"],
    hidden: [],
  });
  expect(api.formatCatalog(skills, { style: "markdown", budget: 41, pinned: ["s2"] }).text).toBe(
    "## Available Skills\n- **s1**\n- **s2**: d2",
  );
  expect(api.nameOnlyNote(2, "find")).toBe(
    "2 skills are listed without their descriptions; use find to find one.",
  );
  expect(api.omittedNote(2, "find")).toBe("2 more skills are not listed here; use find to find one.");
  expect(api.formatCatalog(skills, { location: false }).text).not.toContain("<location>");
  expect(api.formatCatalog(skills, { style: "json", locationStyle: "file-url" }).text).toContain(
    "file:///skills/s1/",
  );
  expect(api.formatSkillContent(skills[0] as (typeof skills)[0], { files: ["a.md"] })).toContain(
    "<file>/skills/s1/a.md</file>",
  );
}

describe("built package", { tags: ["built"] }, () => {
  it("works through require() of the CJS entry", () => {
    exercise(require(`${dist}index.cjs`) as Api);
  });

  it("works through import() of the ESM entry", async () => {
    exercise((await import(`${dist}index.js`)) as Api);
  });

  it("exports exactly the public names", async () => {
    const names = [
      "DEFAULT_FILE_LIMIT",
      "MIN_DESCRIPTION_LENGTH",
      "catalogRank",
      "escapeXml",
      "fmt",
      "formatCatalog",
      "formatSkillContent",
      "nameOnlyNote",
      "omittedNote",
    ];
    expect(Object.keys(await import(`${dist}index.js`)).sort()).toEqual(names);
    expect(Object.keys(require(`${dist}index.cjs`)).sort()).toEqual(names);
  });
});
