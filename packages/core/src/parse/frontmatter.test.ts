import { describe, expect, it } from "vitest";
import { SkillError } from "../spec/errors.js";
import {
  findDelimiters,
  frontmatterEndInBytes,
  locateFrontmatter,
  normalizeText,
  splitFrontmatter,
} from "./frontmatter.js";
import { parseSkill } from "./parse-skill.js";

describe("splitFrontmatter", () => {
  it("extracts the frontmatter and the body", () => {
    const text = "---\nname: test-skill\ndescription: A test skill\n---\n# Instructions\n\nDo the thing.\n";
    expect(splitFrontmatter(text)).toEqual({
      frontmatter: "name: test-skill\ndescription: A test skill",
      body: "# Instructions\n\nDo the thing.\n",
    });
  });

  it("errors when the delimiters are missing", () => {
    for (const text of ["name: x\ndescription: y\n", "# Just markdown", "", "---\nname: x\n", "---"]) {
      try {
        splitFrontmatter(text);
        expect.unreachable(`accepted ${JSON.stringify(text)}`);
      } catch (error) {
        expect(SkillError.isInstance(error)).toBe(true);
        expect((error as SkillError).code).toBe("PARSE_ERROR");
        expect((error as SkillError).message).toMatch(
          /^Failed to parse frontmatter: Missing --- frontmatter delimiters/,
        );
      }
    }
  });

  it("splits empty frontmatter", () => {
    expect(splitFrontmatter("---\n---\nbody content")).toEqual({ frontmatter: "", body: "body content" });
    expect(splitFrontmatter("---\n---")).toEqual({ frontmatter: "", body: "" });
  });

  it("drops a UTF-8 BOM", () => {
    expect(splitFrontmatter("\uFEFF---\nname: x\n---\nbody")).toEqual({
      frontmatter: "name: x",
      body: "body",
    });
  });

  it("reads CRLF and lone CR line endings as LF", () => {
    expect(splitFrontmatter("---\r\nname: x\r\ndescription: y\r\n---\r\nline 1\r\nline 2\r\n")).toEqual({
      frontmatter: "name: x\ndescription: y",
      body: "line 1\nline 2\n",
    });
    expect(splitFrontmatter("---\rname: x\r---\rbody\r")).toEqual({ frontmatter: "name: x", body: "body\n" });
  });

  it("accepts trailing blanks on both delimiter lines and a closing '...'", () => {
    expect(splitFrontmatter("--- \t\nname: x\n---  \nbody")).toEqual({
      frontmatter: "name: x",
      body: "body",
    });
    expect(splitFrontmatter("---\nname: x\n...\nbody")).toEqual({ frontmatter: "name: x", body: "body" });
  });

  it("requires the opening line to be exactly ---", () => {
    for (const text of [
      "----\nname: x\n---\n",
      " ---\nname: x\n---\n",
      "...\nname: x\n---\n",
      "--- x\nname: x\n---\n",
    ]) {
      expect(() => splitFrontmatter(text)).toThrow(/Missing --- frontmatter delimiters/);
    }
  });

  it("never ends the frontmatter at a --- inside a value or in the body", () => {
    const text = [
      "---",
      'name: "a --- b"',
      "description: |",
      "  first",
      "  ---",
      "  last",
      "---",
      "body",
      "---",
      "more body",
    ].join("\n");
    const { frontmatter, body } = splitFrontmatter(text);
    expect(frontmatter).toBe('name: "a --- b"\ndescription: |\n  first\n  ---\n  last');
    expect(body).toBe("body\n---\nmore body");
  });

  it("removes exactly one newline after the closing line", () => {
    expect(splitFrontmatter("---\nname: x\n---\n\n\nbody\n\n").body).toBe("\n\nbody\n\n");
  });
});

describe("line endings and delimiters that are not", () => {
  it("never ends the frontmatter at U+2028, U+2029, NBSP, form feed or NEL", () => {
    for (const odd of ["\u2028", "\u2029", "\u0085"]) {
      const text = `---\nname: a\ndescription: "x${odd}---${odd}y"\nlicense: MIT\n---\nbody\n`;
      const { skill } = parseSkill(text, "/s/a/SKILL.md");
      expect(skill.description).toBe(`x${odd}---${odd}y`);
      expect(skill.frontmatter.license).toBe("MIT");
    }
    for (const close of ["---\u00a0", "...\f", "--- x", "----"]) {
      const text = `---\nname: a\ndescription: d\n${close}\nlicense: MIT\n---\nbody\n`;
      expect(() => splitFrontmatter(text)).not.toThrow();
      expect(splitFrontmatter(text).frontmatter).toBe(`name: a\ndescription: d\n${close}\nlicense: MIT`);
    }
  });

  it("parses a 1 MiB file of blanks and long lines in linear time", () => {
    const inputs = [
      `---\nname: a\ndescription: x${" ".repeat(1_000_000)}y\n---\n`,
      `---\nname: a\ndescription: d\n${" ".repeat(1_000_000)}\n---\n`,
      `---\nname: a\ndescription: d\nk${" ".repeat(1_000_000)}\n---\n`,
      `---\nname: a\ndescription: d\n${"\n".repeat(500_000)}---\n`,
      `---\nname: a\ndescription: "${"\\t ".repeat(300_000)}"\n---\n`,
    ];
    for (const text of inputs) {
      const started = performance.now();
      try {
        parseSkill(text, "/s/a/SKILL.md", { maxBytes: 2 * 1024 * 1024 });
      } catch {
        // Some of these are invalid YAML; the point is how long it takes to say so.
      }
      // Linear parsing takes tens of milliseconds; the quadratic path took minutes.
      expect(performance.now() - started).toBeLessThan(5_000);
    }
  });

  it("finds in text line by line what the scanner of code units finds, on every mix of delimiter-like lines", {
    tags: ["slow"],
    timeout: 60_000,
  }, () => {
    const kinds = [
      "---",
      "--- ",
      "---\t",
      "...",
      "... ",
      "----",
      "--",
      " ---",
      "..",
      "...x",
      "",
      "a: b",
      "-",
    ];
    const texts: string[] = [];
    // Every text of up to four such lines, with and without a final newline.
    const build = (lines: string[]) => {
      texts.push(lines.join("\n"), `${lines.join("\n")}\n`);
      if (lines.length < 4) for (const k of kinds) build([...lines, k]);
    };
    build([]);
    expect(texts.length).toBeGreaterThan(30_000);
    for (const text of texts) {
      const found = findDelimiters((i) => (i < text.length ? text.charCodeAt(i) : undefined), 0, text.length);
      const expected = found && {
        frontmatter: found.close > found.start ? text.slice(found.start, found.close - 1) : "",
        body: text.slice(found.body),
        closingLine: found.closingLine,
      };
      expect(locateFrontmatter(text), JSON.stringify(text)).toEqual(expected);
      // The listing's head read: bytes, perhaps cut short, perhaps after a BOM.
      for (const bytes of [Buffer.from(text), Buffer.from(`\uFEFF${text}`)]) {
        const from = bytes[0] === 0xef ? 3 : 0;
        for (const length of [bytes.length, Math.max(from, bytes.length - 2)]) {
          const head = findDelimiters((i) => bytes[i], from, length, false);
          expect(frontmatterEndInBytes(bytes, length), JSON.stringify(text)).toBe(head ? head.closeEnd : 0);
        }
      }
    }
    // Some 60,000 texts: seconds on a slow or shared machine.
  });

  it("finds the same closing line in bytes (the listing's head read) as in text, on every corpus file", async () => {
    const { readdirSync, readFileSync } = await import("node:fs");
    const { join } = await import("node:path");
    const { corpora } = await import("../../../../fixtures/corpus.mjs");
    const samples: string[] = [
      "---\nname: a\n---\nbody",
      "\uFEFF---\r\nname: a\r\n...\r\nbody",
      "---\rname: a\r---   \rbody",
      "---\nname: a\n--- x\n---\n",
      "---\n---\n",
      "--- \nname: a\n---\n",
    ];
    const walk = (dir: string): void => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (entry.name === "SKILL.md") samples.push(readFileSync(path, "utf8"));
      }
    };
    for (const { dir } of corpora) walk(join(dir, "real"));
    expect(samples.length).toBeGreaterThan(5);
    for (const text of samples) {
      const bytes = Buffer.from(text, "utf8");
      const end = frontmatterEndInBytes(bytes, bytes.length);
      const bounds = locateFrontmatter(normalizeText(text));
      if (!bounds) {
        expect(end).toBe(0);
        continue;
      }
      // The head cut at `end` holds exactly the frontmatter the text scan found.
      const head = locateFrontmatter(normalizeText(bytes.subarray(0, end).toString("utf8")));
      expect(head?.frontmatter).toBe(bounds.frontmatter);
    }
  });
});
