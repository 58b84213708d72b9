import { execFile } from "node:child_process";
import { promisify } from "node:util";

type Env = Readonly<Record<string, string | undefined>>;

const run = promisify(execFile);

/**
 * A unified diff of two files (`git diff --no-index`, 3 lines of context), headers naming
 * `a/<label>` and `b/<label>`, cut to `max` lines; empty when they are equal or git is missing.
 */
export async function unifiedDiff(
  before: string,
  after: string,
  label: string,
  env: Env,
  max = 40,
): Promise<string[]> {
  let text: string;
  try {
    await run("git", ["diff", "--no-index", "--no-color", "--unified=3", "--", before, after], {
      env: { PATH: env.PATH, HOME: env.HOME, LC_ALL: "C", GIT_CONFIG_NOSYSTEM: "1" },
      maxBuffer: 16 * 1024 * 1024,
    });
    return []; // exit 0: no difference
  } catch (error) {
    const e = error as { code?: unknown; stdout?: string };
    if (e.code !== 1 || typeof e.stdout !== "string") return [];
    text = e.stdout;
  }
  const lines = text.split("\n");
  const start = lines.findIndex((l) => l.startsWith("@@"));
  if (start < 0) return [];
  const body = lines.slice(start).filter((l, i, all) => !(i === all.length - 1 && l === ""));
  const out = [`--- a/${label}`, `+++ b/${label}`, ...body.slice(0, max)];
  if (body.length > max) out.push(`… ${body.length - max} more lines`);
  return out;
}
