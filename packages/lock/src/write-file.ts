import { basename, dirname } from "node:path";
import { writeInside } from "@skill/core";

/**
 * Writes a lock file through core's one writer: a temporary file beside it renamed over it (a
 * reader sees the old lock or the new one), its folder made if missing, a link at its place
 * replaced, never written through.
 *
 * @throws SkillError `WRITE_ERROR` naming the file.
 */
export function writeFileAtomically(file: string, text: string): Promise<void> {
  return writeInside(dirname(file), basename(file), Buffer.from(text, "utf8"));
}
