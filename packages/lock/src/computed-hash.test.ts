import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { removeTempDirs, tempDir } from "@skill/test-utils";
import { afterEach, describe, expect, it } from "vitest";
import { goldenFolders, goldenHashes, makeGolden } from "./__fixtures__/golden.js";
import { computedHash, hashedFiles, hashFolder } from "./computed-hash.js";

const temp = () => tempDir("skill-lock-hash-");
afterEach(removeTempDirs);

describe("computedHash", () => {
  // Captured from Vercel's skills 1.7.4 by scripts/lock-interop/run.sh.
  it.each(Object.keys(goldenFolders))(
    "gives the hash skills wrote for the golden folder %s",
    async (name) => {
      const dir = join(await temp(), name);
      await makeGolden(name, dir);
      expect(goldenHashes[name]).toMatch(/^[0-9a-f]{64}$/);
      expect(await computedHash(dir)).toBe(goldenHashes[name]);
    },
  );

  it("sorts as en-US does, not by code unit, and skips links, .git and node_modules", async () => {
    const dir = join(await temp(), "locale-order");
    await makeGolden("locale-order", dir);
    expect(await hashedFiles(dir)).toEqual([
      "_x.md",
      ".hidden",
      "10.md",
      "2.md",
      "a_b.md",
      "a-b.md",
      "a.md",
      "ä.md",
      "B.md",
      "nested/c.md",
      "nested/deep/d.txt",
      "SKILL.md",
      "Z.md",
    ]);
  });

  it("is utf8(path) then bytes per file, with no separators", async () => {
    const dir = await temp();
    await writeFile(join(dir, "b.md"), "2");
    await mkdir(join(dir, "A"));
    await writeFile(join(dir, "A", "x"), "1");
    const expected = createHash("sha256").update("A/x1b.md2").digest("hex");
    expect(await computedHash(dir)).toBe(expected);
  });

  it("covers nested skill folders and dot-files, and not a link to a folder", async () => {
    const dir = await temp();
    await mkdir(join(dir, "inner"));
    await writeFile(join(dir, "SKILL.md"), "outer");
    await writeFile(join(dir, "inner", "SKILL.md"), "inner");
    await writeFile(join(dir, ".env.example"), "E=1");
    await symlink("inner", join(dir, "again"));
    expect(await hashedFiles(dir)).toEqual([".env.example", "inner/SKILL.md", "SKILL.md"]);
  });

  it("does not depend on the process locale", { tags: ["slow"] }, async () => {
    const dir = join(await temp(), "locale-order");
    await makeGolden("locale-order", dir);
    const script = `import(${JSON.stringify(new URL("../dist/index.js", import.meta.url).href)}).then(async (m) => process.stdout.write(await m.computedHash(${JSON.stringify(dir)})))`;
    for (const lang of ["sv_SE.UTF-8", "C", "tr_TR.UTF-8"]) {
      const out = execFileSync(process.execPath, ["-e", script], {
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", LANG: lang, LC_ALL: lang },
        encoding: "utf8",
      });
      expect(out).toBe(goldenHashes["locale-order"]);
    }
  });

  it("changes when one byte changes", async () => {
    const dir = join(await temp(), "plain");
    await makeGolden("plain", dir);
    await writeFile(join(dir, "SKILL.md"), "---\nname: plain\ndescription: One file only.\n---\nBodY\n");
    expect(await computedHash(dir)).not.toBe(goldenHashes.plain);
  });

  it("hashes files in sorted order though it reads several ahead (more files than it reads at once)", async () => {
    const dir = join(await temp(), "many");
    const files: [string, Buffer][] = [];
    for (let i = 0; i < 40; i++) {
      // Sizes from empty to 200 KiB, so later reads can finish before earlier ones.
      const bytes = Buffer.alloc(((i * 7919) % 41) * 5000, i);
      files.push([`${i % 3 === 0 ? "sub/" : ""}f${i}.txt`, bytes]);
    }
    files.push(["SKILL.md", Buffer.from("---\nname: many\ndescription: Many files.\n---\n")]);
    await mkdir(join(dir, "sub"), { recursive: true });
    for (const [path, bytes] of files) await writeFile(join(dir, path), bytes);
    const collator = new Intl.Collator("en-US");
    const expected = createHash("sha256");
    for (const [path, bytes] of [...files].sort((a, b) => collator.compare(a[0], b[0]))) {
      expected.update(path, "utf8");
      expected.update(bytes);
    }
    expect(await computedHash(dir)).toBe(expected.digest("hex"));
  });

  it("refuses a missing folder with NOT_FOUND naming it", async () => {
    const dir = join(await temp(), "nope");
    await expect(computedHash(dir)).rejects.toMatchObject({ code: "NOT_FOUND", path: dir });
  });
});

describe("hashFolder", () => {
  it("gives computedHash and the very bytes it hashed, in order, while they fit keepBytes", async () => {
    const dir = join(await temp(), "locale-order");
    await makeGolden("locale-order", dir);
    const paths = await hashedFiles(dir);
    const all = await hashFolder(dir, { keepBytes: Number.POSITIVE_INFINITY });
    expect(all.hash).toBe(goldenHashes["locale-order"]);
    expect(all.files?.map((f) => f.path)).toEqual(paths);
    for (const file of all.files ?? []) {
      expect(Buffer.from(file.bytes).equals(await readFile(join(dir, ...file.path.split("/"))))).toBe(true);
    }
    const total = (all.files ?? []).reduce((sum, f) => sum + f.bytes.length, 0);
    expect((await hashFolder(dir, { keepBytes: total })).files?.length).toBe(paths.length);
    const over = await hashFolder(dir, { keepBytes: total - 1 });
    expect(over).toEqual({ hash: goldenHashes["locale-order"], files: undefined });
    expect((await hashFolder(dir)).files).toBeUndefined();
  });

  it("refuses a keepBytes that is not a number >= 0, and a missing folder as computedHash does", async () => {
    const dir = join(await temp(), "plain");
    await makeGolden("plain", dir);
    await expect(hashFolder(dir, { keepBytes: -1 })).rejects.toMatchObject({ code: "INVALID_FIELD" });
    await expect(hashFolder(dir, { keepBytes: Number.NaN })).rejects.toMatchObject({ code: "INVALID_FIELD" });
    const missing = join(dir, "nope");
    await expect(hashFolder(missing)).rejects.toMatchObject({ code: "NOT_FOUND", path: missing });
  });
});
