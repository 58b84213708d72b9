import { execFileSync } from "node:child_process";
import { lstat, mkdir, readdir, readFile, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { removeTempDirs, tempDir } from "@skill/test-utils";
import { afterEach, describe, expect, it } from "vitest";
import {
  formatProjectLock,
  lockedSourcePath,
  type ProjectLock,
  portableSource,
  readProjectLock,
  writeProjectLock,
} from "./project-lock.js";

const temp = () => tempDir("skill-lock-project-");
afterEach(removeTempDirs);

const HASH = "a".repeat(64);

// Bytes as skills 1.7.4 writes them (a git entry, a local one, and a field of its own).
const VERCEL = `{
  "version": 1,
  "skills": {
    "golden": {
      "source": "../src/golden",
      "sourceType": "local",
      "computedHash": "${HASH}"
    },
    "pdf": {
      "source": "https://example.test/skills.git",
      "sourceUrl": "https://example.test/skills.git",
      "ref": "v1",
      "sourceType": "git",
      "skillPath": "skills/pdf/SKILL.md",
      "computedHash": "${HASH}",
      "subagents": [
        "reviewer"
      ]
    }
  }
}
`;

describe("project lock", () => {
  it("reads what skills writes and writes it back byte for byte", async () => {
    const file = join(await temp(), "skills-lock.json");
    await writeFile(file, VERCEL);
    const lock = await readProjectLock(file);
    expect(lock?.skills.golden?.source).toBe("../src/golden");
    expect(lock?.skills.pdf?.subagents).toEqual(["reviewer"]);
    await writeProjectLock(file, lock as ProjectLock);
    expect(await readFile(file, "utf8")).toBe(VERCEL);
  });

  it("sorts skills by name, keeps unknown fields, and writes local sources relative to the lock", async () => {
    const dir = await temp();
    const file = join(dir, "skills-lock.json");
    const lock: ProjectLock = {
      version: 1,
      skills: {
        zeta: { source: "owner/repo", sourceType: "github", computedHash: HASH, ghField: 1 },
        Alpha: { source: join(dir, "vendor", "alpha"), sourceType: "local", computedHash: HASH },
        beta: { source: join(dir, "..", "elsewhere"), sourceType: "local", computedHash: HASH },
      },
      generatedBy: "another tool",
    };
    await writeProjectLock(file, lock);
    const text = await readFile(file, "utf8");
    const written = JSON.parse(text);
    expect(Object.keys(written)).toEqual(["version", "skills", "generatedBy"]);
    expect(Object.keys(written.skills)).toEqual(["Alpha", "beta", "zeta"]);
    expect(written.skills.Alpha.source).toBe("./vendor/alpha");
    expect(written.skills.beta.source).toBe("../elsewhere");
    expect(written.skills.zeta.ghField).toBe(1);
    expect(text.endsWith("}\n")).toBe(true);
    expect(text).toContain('\n  "skills": {\n    "Alpha": {\n      "source"');
    const back = (await readProjectLock(file)) as ProjectLock;
    expect(lockedSourcePath(file, back.skills.Alpha as never)).toBe(join(dir, "vendor", "alpha"));
    expect(formatProjectLock(back, dir)).toBe(text);
  });

  it("writes . for the lock's own folder", () => {
    expect(portableSource("/p", "/p")).toBe(".");
    expect(portableSource("/p/a/b", "/p")).toBe("./a/b");
    expect(portableSource("./a", "/p")).toBe("./a");
  });

  it("gives undefined for a missing file", async () => {
    expect(await readProjectLock(join(await temp(), "skills-lock.json"))).toBeUndefined();
  });

  it.each([
    ["not JSON", "{ version: 1", "PARSE_ERROR", "not valid JSON"],
    ["a list", "[]", "PARSE_ERROR", "expected a JSON object, found a list"],
    [
      "a wrong version",
      '{"version":2,"skills":{}}',
      "INVALID_FIELD",
      "'version' should be 1, found a number",
    ],
    ["no skills", '{"version":1}', "INVALID_FIELD", "'skills' should be an object"],
    [
      "an entry without computedHash",
      '{"version":1,"skills":{"x":{"source":"a","sourceType":"local"}}}',
      "INVALID_FIELD",
      "'skills.x.computedHash' should be a string",
    ],
    [
      "a ref that is not a string",
      '{"version":1,"skills":{"x":{"source":"a","sourceType":"git","computedHash":"h","ref":3}}}',
      "INVALID_FIELD",
      "'skills.x.ref' should be a string",
    ],
  ])("refuses %s with an error naming the file, and leaves it alone", async (_what, text, code, message) => {
    const file = join(await temp(), "skills-lock.json");
    await writeFile(file, text);
    const error = await readProjectLock(file).catch((e: unknown) => e);
    expect(error).toMatchObject({ code, path: file });
    expect((error as Error).message).toContain(file);
    expect((error as Error).message).toContain(message);
    expect(await readFile(file, "utf8")).toBe(text);
  });

  it("never waits on a FIFO in the lock's place, nor reads a link out of its folder (and never echoes its target)", {
    tags: ["slow"],
  }, async () => {
    const dir = await temp();
    const fifo = join(dir, "skills-lock.json");
    execFileSync("mkfifo", [fifo]);
    await expect(readProjectLock(fifo)).rejects.toMatchObject({ code: "READ_ERROR", path: fifo });
    const project = await temp();
    const secret = join(await temp(), "secret.txt");
    await writeFile(secret, "SECRET=hunter2 not json");
    await symlink(secret, join(project, "skills-lock.json"));
    const error = await readProjectLock(join(project, "skills-lock.json")).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "UNSAFE_PATH", path: join(project, "skills-lock.json") });
    expect((error as Error).message).not.toContain("hunter2");
  });

  it("reads a lock with a byte-order mark", async () => {
    const file = join(await temp(), "skills-lock.json");
    await writeFile(file, `\uFEFF${VERCEL}`);
    expect(Object.keys((await readProjectLock(file))?.skills ?? {})).toEqual(["golden", "pdf"]);
  });
});

describe("atomic writes", () => {
  it("replaces the file by a rename and leaves no temporary file", async () => {
    const dir = await temp();
    const file = join(dir, "skills-lock.json");
    await writeFile(file, VERCEL);
    const before = await stat(file);
    await writeProjectLock(file, { version: 1, skills: {} });
    const after = await stat(file);
    expect(after.ino).not.toBe(before.ino); // a new file renamed in place, not rewritten in place
    expect(await readdir(dir)).toEqual(["skills-lock.json"]);
    expect(await readFile(file, "utf8")).toBe('{\n  "version": 1,\n  "skills": {}\n}\n');
  });

  it("keeps the old file and cleans up when the rename fails", async () => {
    const dir = await temp();
    const file = join(dir, "skills-lock.json");
    await mkdir(file); // a folder where the lock should be: rename refuses
    await writeFile(join(file, "keep"), "x");
    const error = await writeProjectLock(file, { version: 1, skills: {} }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "WRITE_ERROR", path: file });
    expect((error as Error).message).toContain(file);
    expect(await readdir(dir)).toEqual(["skills-lock.json"]);
    expect(await readdir(file)).toEqual(["keep"]);
  });

  it("replaces a link in the lock's place instead of writing through it (a hostile checkout)", async () => {
    const dir = await temp();
    const outside = join(await temp(), "victim.json");
    await writeFile(outside, "untouched");
    await symlink(outside, join(dir, "skills-lock.json"));
    await writeProjectLock(join(dir, "skills-lock.json"), { version: 1, skills: {} });
    expect((await lstat(join(dir, "skills-lock.json"))).isFile()).toBe(true);
    expect(await readFile(outside, "utf8")).toBe("untouched");
  });

  it("creates the lock's folder", async () => {
    const file = join(await temp(), "a", "b", "skills-lock.json");
    await writeProjectLock(file, { version: 1, skills: {} });
    expect((await readProjectLock(file))?.skills).toEqual({});
  });
});

describe("locks are plain data", () => {
  const names = ["__proto__", "constructor", "hasOwnProperty", "toString"];
  const entry = (name: string) =>
    `    ${JSON.stringify(name)}: {\n      "source": "o/r",\n      "sourceType": "github",\n      "computedHash": "${HASH}",\n      "extra": { "__proto__": { "x": 1 } }\n    }`;
  const text = `{\n  "version": 1,\n  "skills": {\n${names.map(entry).join(",\n")}\n  }\n}\n`;

  it("reads every name as an own key of objects without a prototype, and writes them all back byte for byte", async () => {
    const dir = await temp();
    const file = join(dir, "skills-lock.json");
    await writeFile(file, text);
    const lock = (await readProjectLock(file)) as ProjectLock;
    expect(Object.getPrototypeOf(lock)).toBeNull();
    expect(Object.getPrototypeOf(lock.skills)).toBeNull();
    expect(Object.keys(lock.skills)).toEqual(names);
    for (const name of names) expect(lock.skills[name]?.source).toBe("o/r");
    expect(lock.skills.valueOf).toBeUndefined(); // no Object.prototype behind a missing name
    await writeProjectLock(file, lock);
    const sorted = [...names].sort();
    expect(Object.keys(JSON.parse(await readFile(file, "utf8")).skills)).toEqual(sorted);
    const again = (await readProjectLock(file)) as ProjectLock;
    expect(Object.keys(again.skills)).toEqual(sorted);
    const proto = names[0] as string;
    expect(Object.keys(again.skills[proto]?.extra as object)).toEqual([proto]);
  });
});
