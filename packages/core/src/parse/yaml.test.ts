import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import jsYaml from "js-yaml";
import { describe, expect, it } from "vitest";
import { locateFrontmatter, normalizeText } from "./frontmatter.js";
import { parseSimpleMapping, parseYaml } from "./yaml.js";

/** js-yaml's answer: the value, or the error message it throws. */
function reference(text: string): unknown {
  try {
    return { value: jsYaml.safeLoad(text) };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

/** The simple reader either declines or agrees with js-yaml exactly (key order included). */
function expectAgreement(text: string): boolean {
  const simple = parseSimpleMapping(text);
  if (simple === undefined) return false;
  const ref = reference(text) as { value?: unknown };
  expect({ text, value: simple }).toEqual({ text, value: ref.value });
  expect(Object.keys(simple)).toEqual(Object.keys(ref.value as object));
  return true;
}

const corpus = fileURLToPath(new URL("../../../../../shared/corpus/real/", import.meta.url));

function skillFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...skillFiles(path));
    else if (name === "SKILL.md") out.push(path);
  }
  return out;
}

describe("the simple frontmatter reader", () => {
  it("reads one-line plain and quoted strings and block scalars as js-yaml does", () => {
    const cases = [
      "name: pdf\ndescription: Reads PDF files, [forms] and {tables}. C# too; 50% off!",
      "name: pdf\ndescription: 'It''s a ''quoted'' value: with # signs'",
      'name: pdf\ndescription: "Double: quoted # value, it\'s fine"',
      "name: pdf\ndescription: |\n  Line one: here\n  Line two # not a comment\nlicense: MIT",
      "name: pdf\ndescription: |-\n  a\n  b",
      "name: pdf\ndescription: >\n  folded\n  lines\n\nlicense: MIT",
      "name: pdf\ndescription: >-\n    deeper\n    indent",
      "name:    spaced   \ndescription: x",
      "name: foo:bar\ndescription: a-b, c.d e?f g!h",
      "name: yes\ndescription: no\nlicense: on\ncompatibility: off",
      "Name: A\nname: a\ndescription: NaN\nx_y-z: Infinity",
      "name: 日本語\ndescription: 😀 emoji and ünïcödé",
      "name: ''\ndescription: \"\"",
      'name: a\ndescription: "say \\"hi\\" to C:\\\\dir"',
      'name: a\nmetadata:\n  author: me\n  version: "2.5"\nlicense: MIT',
      "name: a\nmetadata:\n    deep: 'x'",
      "name: a\ntags: [storage, figure, a.b, c-d, e_f, g/h]\nkeywords: []",
      "name: a\nversion: 2.4.7\nother: 10.0.1.5",
    ];
    for (const text of cases) expect(expectAgreement(text)).toBe(true);
  });

  it("declines whatever it does not read exactly, so js-yaml reads it", () => {
    const declined = [
      "",
      "# comment\nname: a",
      "name: a # comment",
      "name: true",
      "name: False",
      "name: null",
      "name: ~",
      "name: 12",
      "name: 1.5",
      "name: .inf",
      "name: -x",
      "name: 2024-01-01",
      "name: <<",
      "name: &a x",
      "name: *a",
      "name: !!str x",
      "name: {a: b}",
      "name:",
      "name: a\nname: b",
      "__proto__: x",
      "metadata:\n  author: 12",
      "metadata:\n  author: me\n    more: x",
      "metadata:\n  a: x\n  a: y",
      "metadata:\n  a:\n    b: c",
      "metadata:\n  - a",
      "metadata:\n  a: x\n   b: y",
      "tags: [a, true]",
      "tags: [a, 1]",
      "tags: [a, [b]]",
      "tags: [a b]",
      "tags: [a,]",
      "tags: [a]\n  more",
      "version: 2.4",
      "version: 1.2.3a",
      "tools:\n  - a\n  - b",
      "description: Use when: x",
      "description: ends with:",
      "description: first\n  continued",
      "description: 'first\n  continued'",
      'description: "escaped \\n"',
      'description: "ends in a backslash \\\\"',
      'description: "lone \\ backslash"',
      'description: "a"b"',
      "description: 'a'b'",
      "description: |\n  a\n    more\n",
      "description: |\n  a\n\n  b",
      "description: |\n  trailing \n",
      "description: |+\n  keep\n",
      "description: |2\n   indent\n",
      "description: | # c\n  x",
      "description: |\nname: a",
      "name: a\tb",
      "name: a\u0085b",
      "name: a\u2028b",
      "name: a\u0007b",
      "name: a\r\ndescription: b",
      "name: a\ufeff",
      "  name: a",
      "na me: a",
      "name : a",
      "'name': a",
      "name:a",
    ];
    for (const text of declined)
      expect({ text, value: parseSimpleMapping(text) }).toEqual({ text, value: undefined });
  });

  it("agrees with js-yaml on every real skill it reads, and says how many it read", () => {
    let files: string[];
    try {
      files = skillFiles(corpus);
    } catch {
      console.log("../shared/corpus is absent: the corpus comparison is skipped");
      return;
    }
    let read = 0;
    for (const file of files) {
      const bounds = locateFrontmatter(normalizeText(readFileSync(file, "utf8")));
      if (bounds && expectAgreement(bounds.frontmatter)) read++;
    }
    expect(files.length).toBeGreaterThan(0);
    expect(read).toBeGreaterThan(0);
  });

  it("agrees with js-yaml on random frontmatter built from YAML's tricky characters", () => {
    // A small deterministic generator (no Math.random): the same cases on every run.
    let seed = 12345;
    const next = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const atoms = [
      "a",
      "b",
      "Z",
      "0",
      "1",
      " ",
      ":",
      "#",
      "'",
      '"',
      "-",
      "?",
      ",",
      "[",
      "]",
      "{",
      "}",
      "&",
      "*",
      "!",
      "|",
      ">",
      "%",
      "@",
      "`",
      "~",
      ".",
      "+",
      "<",
      "=",
      "\\",
      "é",
      "true",
      "False",
      "null",
      "yes",
      "x: ",
      " #",
    ];
    let agreed = 0;
    for (let n = 0; n < 4000; n++) {
      const lines: string[] = [];
      for (let k = 0; k < 1 + next(3); k++) {
        let value = "";
        for (let c = 0; c < 1 + next(8); c++) value += atoms[next(atoms.length)];
        const style = next(8);
        if (style === 6) lines.push(`k${k}:`, `  a: ${value}`, `  b: '${value}'`);
        else if (style === 7) lines.push(`k${k}: [${value}, ${atoms[next(atoms.length)]}]`);
        else if (style === 0) lines.push(`k${k}: |${next(2) ? "-" : ""}`, `  ${value}`, `  ${value}`);
        else if (style === 1) lines.push(`k${k}: >`, `  ${value}`);
        else if (style === 2) lines.push(`k${k}: '${value}'`);
        else if (style === 3) lines.push(`k${k}: "${value}"`);
        else lines.push(`k${k}: ${value}`);
      }
      if (expectAgreement(lines.join("\n"))) agreed++;
    }
    // The generator must exercise the reader, not only its refusals.
    expect(agreed).toBeGreaterThan(400);
  });

  it("leaves parseYaml's results unchanged: the simple path and js-yaml give the same value", () => {
    const text = "name: pdf\ndescription: >\n  Reads\n  PDFs";
    expect(parseYaml(text)).toEqual({ ok: true, value: jsYaml.safeLoad(text) });
    expect(parseYaml("name: [a")).toMatchObject({ ok: false });
  });
});
