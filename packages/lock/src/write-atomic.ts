import { randomBytes } from "node:crypto";
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { errnoOf, SkillError } from "@skill/core";

/**
 * Writes `text` to `file` through a temporary file in the same folder and a rename, so a
 * reader sees the old file or the new one, never half of one. Creates the folder.
 */
export async function writeAtomic(file: string, text: string): Promise<void> {
  const dir = dirname(file);
  const temp = join(dir, `.${basename(file)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
  try {
    await mkdir(dir, { recursive: true });
    await writeFile(temp, text, { encoding: "utf8", flag: "wx" });
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true }).catch(() => {});
    const why = errnoOf(error) ?? String(error);
    throw new SkillError("WRITE_ERROR", `Failed to write lock file ${file} (${why})`, {
      path: file,
      cause: error,
    });
  }
}
