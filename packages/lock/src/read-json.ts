import { basename, dirname } from "node:path";
import { describeKind, errorMessage, isMapping, quote, readInside, SkillError } from "@skill/core";

/** Largest lock file read (one of 10,000 skills is a few megabytes). */
const MAX_LOCK_BYTES = 64 * 1024 * 1024;

/**
 * A JSON object read from `file`; undefined when there is no such file. Read through core's
 * reader: a regular file only (a FIFO or a device in its place is `READ_ERROR`, never a wait),
 * and a link that leads out of its folder is `UNSAFE_PATH`, never read through.
 */
export async function readJsonObject(
  file: string,
  what: string,
): Promise<Record<string, unknown> | undefined> {
  let text: string;
  try {
    const bytes = await readInside(dirname(file), basename(file), { maxBytes: MAX_LOCK_BYTES });
    text = new TextDecoder().decode(bytes);
  } catch (error) {
    if (SkillError.isInstance(error) && error.code === "NOT_FOUND") return undefined;
    const why = SkillError.isInstance(error) ? error.message : errorMessage(error);
    throw new SkillError(
      SkillError.isInstance(error) ? error.code : "READ_ERROR",
      `Failed to read ${what} ${file}: ${why}`,
      { path: file, cause: error },
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (error) {
    throw new SkillError(
      "PARSE_ERROR",
      `Broken ${what} ${file}: not valid JSON (${errorMessage(error)}); found ${quote(text)}. Fix or delete it; it is not overwritten`,
      { path: file, cause: error },
    );
  }
  if (!isMapping(value)) {
    throw new SkillError(
      "PARSE_ERROR",
      `Broken ${what} ${file}: expected a JSON object, found ${describeKind(value)}`,
      { path: file },
    );
  }
  return plainData(value) as Record<string, unknown>;
}

/**
 * `value` with every object made anew without a prototype: a lookup by a skill's name is an
 * own-property lookup whatever the name (`constructor`, `__proto__`, `hasOwnProperty` are
 * skills like any other), and a `__proto__` key stays a key.
 */
export function plainData(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plainData);
  if (!isMapping(value)) return value;
  const out: Record<string, unknown> = Object.create(null);
  for (const [key, field] of Object.entries(value)) out[key] = plainData(field);
  return out;
}

export function invalid(
  file: string,
  what: string,
  field: string,
  expected: string,
  found: unknown,
): SkillError {
  return new SkillError(
    "INVALID_FIELD",
    `Broken ${what} ${file}: '${field}' should be ${expected}, found ${typeof found === "string" ? quote(found) : describeKind(found)}`,
    { path: file, field },
  );
}
