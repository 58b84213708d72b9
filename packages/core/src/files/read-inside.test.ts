import { execFileSync, spawn, spawnSync } from "node:child_process";
import { chmod, mkdir, symlink } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { installBuilt, tempDir as makeTempDir, removeTempDirs, writeTree } from "@skill/test-utils";
import { afterAll, describe, expect, it } from "vitest";
import { SkillError } from "../spec/errors.js";
import { readInside } from "./read-inside.js";

const CORE = fileURLToPath(new URL("../..", import.meta.url));
afterAll(removeTempDirs);

const tempDir = () => makeTempDir("skill-read-inside-");

const tree = writeTree;

async function rejection(promise: Promise<unknown>): Promise<SkillError> {
  try {
    await promise;
  } catch (error) {
    if (SkillError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected a SkillError, the call succeeded");
}

/** `<base>/pdf` (the skill), a sibling skill `<base>/docx`, and files outside both. */
async function skills(): Promise<{ base: string; skill: string }> {
  const base = await tempDir();
  const skill = join(base, "pdf");
  await tree(skill, { "SKILL.md": "---\nname: pdf\n---\n", "scripts/fill.py": "print(1)\n" });
  await tree(base, { "docx/SKILL.md": "docx", "outside.txt": "outside" });
  return { base, skill };
}

const text = (bytes: Uint8Array): string => Buffer.from(bytes).toString("utf8");

describe("readInside", () => {
  it("reads a file below the root as plain bytes", async () => {
    const { skill } = await skills();
    const bytes = await readInside(skill, "scripts/fill.py");
    expect(bytes).toBeInstanceOf(Uint8Array);
    expect(Buffer.isBuffer(bytes)).toBe(false);
    expect(text(bytes)).toBe("print(1)\n");
    expect(text(await readInside(skill, "./scripts/./fill.py"))).toBe("print(1)\n");
    expect(await readInside(skill, "SKILL.md")).toHaveLength(18);
  });

  it("reads binary content and empty files unchanged", async () => {
    const dir = await tempDir();
    const data = Uint8Array.from({ length: 70_000 }, (_, i) => (i * 7) % 256);
    await tree(dir, { "data.bin": data, "empty.txt": "" });
    expect(await readInside(dir, "data.bin")).toEqual(data);
    expect(await readInside(dir, "empty.txt")).toEqual(new Uint8Array(0));
  });

  it("reads through a link whose target stays inside, also when the root is itself a link", async () => {
    const { base, skill } = await skills();
    await symlink("scripts/fill.py", join(skill, "fill"));
    await symlink("scripts", join(skill, "bin"));
    await symlink(skill, join(base, "alias"));
    expect(text(await readInside(skill, "fill"))).toBe("print(1)\n");
    expect(text(await readInside(skill, "bin/fill.py"))).toBe("print(1)\n");
    expect(text(await readInside(join(base, "alias"), "fill"))).toBe("print(1)\n");
  });

  it.each([
    ["../docx/SKILL.md"],
    ["scripts/../../outside.txt"],
    ["/etc/passwd"],
    ["scripts\\fill.py"],
    ["a\0b"],
    [""],
  ])("refuses %j by the path rule with UNSAFE_PATH", async (path) => {
    const { skill } = await skills();
    const error = await rejection(readInside(skill, path));
    expect(error.code).toBe("UNSAFE_PATH");
    expect(error.path).toBe(skill);
  });

  it("refuses a link to /etc/passwd, to a file outside, to a sibling skill, or through an outside folder", async () => {
    const { base, skill } = await skills();
    await symlink("/etc/passwd", join(skill, "passwd"));
    await symlink(join(base, "outside.txt"), join(skill, "outside.txt"));
    await symlink("../../docx/SKILL.md", join(skill, "scripts/docx.md"));
    await symlink("/etc", join(skill, "etc"));
    await symlink("..", join(skill, "up"));
    for (const path of ["passwd", "outside.txt", "scripts/docx.md", "etc/passwd", "up/docx/SKILL.md"]) {
      const error = await rejection(readInside(skill, path));
      expect(error.code, path).toBe("UNSAFE_PATH");
      expect(error.path).toBe(join(skill, path));
      expect(error.message).toBe(
        `Unsafe path: expected a file inside ${skill}, found ${JSON.stringify(path)} leading outside it through a symbolic link`,
      );
      // Where the link leads is not told: the message may travel to whoever asked.
      expect(error.message).not.toContain(`${base}/docx`);
      expect(error.message).not.toContain("/etc/passwd");
    }
  });

  it("refuses an outside link before opening it: no FIFO check, no size check", {
    tags: ["slow"],
  }, async () => {
    const { base, skill } = await skills();
    execFileSync("mkfifo", [join(base, "pipe")]);
    await tree(base, { "big.bin": new Uint8Array(1000) });
    await symlink(join(base, "pipe"), join(skill, "pipe"));
    await symlink(join(base, "big.bin"), join(skill, "big.bin"));
    expect((await rejection(readInside(skill, "big.bin", { maxBytes: 10 }))).code).toBe("UNSAFE_PATH");
    // A writer blocks opening the FIFO until some reader opens it: if readInside opened the
    // outside file even for a moment, the writer would get through.
    const writer = spawn(
      process.execPath,
      [
        "-e",
        `process.stdout.write("ready\\n"); require("node:fs").openSync(${JSON.stringify(join(base, "pipe"))}, "w"); process.stdout.write("opened\\n");`,
      ],
      { env: {}, stdio: ["ignore", "pipe", "inherit"] },
    );
    try {
      let said = "";
      writer.stdout.on("data", (chunk) => {
        said += String(chunk);
      });
      await new Promise((done) => writer.stdout.once("data", done));
      await new Promise((done) => setTimeout(done, 100));
      expect((await rejection(readInside(skill, "pipe"))).code).toBe("UNSAFE_PATH");
      await new Promise((done) => setTimeout(done, 300));
      expect(said).toBe("ready\n");
    } finally {
      writer.kill();
    }
  });

  it("refuses a FIFO with READ_ERROR without waiting for a writer", { tags: ["slow"] }, async () => {
    const dir = await tempDir();
    execFileSync("mkfifo", [join(dir, "pipe")]);
    const started = Date.now();
    const error = await rejection(readInside(dir, "pipe"));
    expect(Date.now() - started).toBeLessThan(2000);
    expect(error.code).toBe("READ_ERROR");
    expect(error.path).toBe(join(dir, "pipe"));
    expect(error.message).toBe(
      `Failed to read skill file: ${join(dir, "pipe")} (expected a regular file, found a FIFO)`,
    );
  });

  it("refuses a folder or a device with READ_ERROR", async () => {
    const dir = await tempDir();
    await mkdir(join(dir, "scripts"));
    await symlink("/dev/null", join(dir, "null"));
    const folder = await rejection(readInside(dir, "scripts"));
    expect(folder.code).toBe("READ_ERROR");
    expect(folder.message).toContain("found a folder");
    // /dev/null is outside, so it is refused before its kind is looked at.
    expect((await rejection(readInside(dir, "null"))).code).toBe("UNSAFE_PATH");
    expect((await rejection(readInside("/dev", "null"))).message).toContain("found a device");
  });

  it("refuses a file over maxBytes (default 10 MiB) with LIMIT_EXCEEDED before reading it", async () => {
    const dir = await tempDir();
    await tree(dir, { "ten.bin": new Uint8Array(10), "big.bin": new Uint8Array(10 * 1024 * 1024 + 1) });
    expect(await readInside(dir, "ten.bin", { maxBytes: 10 })).toHaveLength(10);
    const small = await rejection(readInside(dir, "ten.bin", { maxBytes: 9 }));
    expect(small.code).toBe("LIMIT_EXCEEDED");
    expect(small.path).toBe(join(dir, "ten.bin"));
    expect(small.message).toBe(
      `Skill file too large: ${join(dir, "ten.bin")} is 10 bytes, the limit is 9 bytes (maxBytes)`,
    );
    expect((await rejection(readInside(dir, "big.bin"))).code).toBe("LIMIT_EXCEEDED");
    expect(await readInside(dir, "big.bin", { maxBytes: Number.POSITIVE_INFINITY })).toHaveLength(
      10 * 1024 * 1024 + 1,
    );
    const invalid = await rejection(readInside(dir, "ten.bin", { maxBytes: -1 }));
    expect(invalid.code).toBe("INVALID_FIELD");
  });

  it("rejects a missing file, a dangling link and a missing root with NOT_FOUND", async () => {
    const dir = await tempDir();
    await symlink("nowhere.md", join(dir, "dangling.md"));
    const missing = await rejection(readInside(dir, "scripts/none.py"));
    expect(missing.code).toBe("NOT_FOUND");
    expect(missing.path).toBe(join(dir, "scripts/none.py"));
    expect(missing.message).toBe(`Skill file not found: ${join(dir, "scripts/none.py")}`);
    expect((await rejection(readInside(dir, "dangling.md"))).code).toBe("NOT_FOUND");
    const root = await rejection(readInside(join(dir, "gone"), "SKILL.md"));
    expect(root.code).toBe("NOT_FOUND");
    expect(root.message).toBe(`Skill folder not found: ${join(dir, "gone")}`);
  });

  it("rejects a loop of links with READ_ERROR", async () => {
    const dir = await tempDir();
    await symlink("ping", join(dir, "pong"));
    await symlink("pong", join(dir, "ping"));
    const error = await rejection(readInside(dir, "ping"));
    expect(error.code).toBe("READ_ERROR");
    expect(error.message).toContain("a loop of symbolic links");
  });

  it("rejects with ABORTED on an aborted signal", async () => {
    const dir = await tempDir();
    await tree(dir, { "a.md": "a" });
    const error = await rejection(readInside(dir, "a.md", { signal: AbortSignal.abort() }));
    expect(error.code).toBe("ABORTED");
    expect(error.path).toBe(join(dir, "a.md"));
  });

  it("rejects a file it may not read with READ_ERROR (as uid 65534)", { tags: ["slow"] }, async (ctx) => {
    const nobody = 65534;
    const dir = await tempDir();
    await chmod(dir, 0o755);
    await tree(dir, { "open.md": "open", "secret.md": "secret" });
    await chmod(join(dir, "secret.md"), 0o600); // owned by root
    // The checkout may be closed to uid 65534 (a clone under a 0700 folder): it loads a copy.
    const readable = await tempDir();
    await chmod(readable, 0o755);
    const dist = await installBuilt(CORE, readable);
    const script = `
      const { readInside } = await import(${JSON.stringify(dist)});
      const open = Buffer.from(await readInside(${JSON.stringify(dir)}, "open.md")).toString();
      const error = await readInside(${JSON.stringify(dir)}, "secret.md").catch((e) => e);
      console.log(JSON.stringify({ open, code: error.code, path: error.path }));`;
    const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
      uid: nobody,
      gid: nobody,
      env: {},
      cwd: dir,
      encoding: "utf8",
      timeout: 30_000,
    });
    if (process.getuid?.() !== 0) {
      ctx.skip(); // only root can run a child as uid 65534
      return;
    }
    expect(child.stderr).toBe("");
    expect(JSON.parse(child.stdout)).toEqual({
      open: "open",
      code: "READ_ERROR",
      path: join(dir, "secret.md"),
    });
  });
});

describe("readInside against a tree changing under it", { tags: ["slow"] }, () => {
  it("never returns bytes from outside while a folder on the way is swapped for an outside link", async () => {
    const { base, skill } = await skills();
    await tree(base, { "elsewhere/secret.txt": "OUTSIDE" });
    await tree(skill, { "inner/secret.txt": "inside" });
    await symlink(join(base, "elsewhere"), join(skill, "evil"));
    // A child process flips `inner` between the real folder and the outside link as fast as
    // it can, so the gap between checking the real path and opening the file is hit.
    const swapper = `
      const { renameSync } = require("node:fs");
      const at = (n) => ${JSON.stringify(skill)} + "/" + n;
      const stop = Date.now() + 20000;
      process.stdout.write("ready\\n");
      while (Date.now() < stop) {
        renameSync(at("inner"), at("spare"));
        renameSync(at("evil"), at("inner"));
        renameSync(at("inner"), at("evil"));
        renameSync(at("spare"), at("inner"));
      }`;
    const child = spawn(process.execPath, ["-e", swapper], { env: {}, stdio: ["ignore", "pipe", "inherit"] });
    try {
      await new Promise((done) => child.stdout.once("data", done));
      const seen: Record<string, number> = {};
      const until = Date.now() + 2000;
      while (Date.now() < until) {
        const outcome = await readInside(skill, "inner/secret.txt").then(
          (bytes) => text(bytes),
          (error: SkillError) => error.code,
        );
        seen[outcome] = (seen[outcome] ?? 0) + 1;
      }
      expect(seen.OUTSIDE, JSON.stringify(seen)).toBeUndefined();
      // The race was really run: both the real file and a refusal were seen.
      expect(seen.inside, JSON.stringify(seen)).toBeGreaterThan(0);
    } finally {
      child.kill();
    }
  }, 30_000);
});
