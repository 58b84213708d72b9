import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { removeTempDirs, tempDir } from "@skill/test-utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditSkill } from "./audit.js";

// `skill pull` audits every skill it pulls, so one line a pack author writes must not cost
// minutes. Each input below made a pattern backtrack quadratically (n = 20,000 took seconds,
// twice that four times as long). A clock limit would flake on a loaded machine; growth does
// not: doubling the input of a linear audit doubles its time, far from the 4× of a quadratic one.

let root: string;

beforeAll(async () => {
  root = await tempDir("skill-audit-linear-");
});

afterAll(removeTempDirs);

const HEAD = "---\nname: demo\ndescription: Formats dates.\n---\n";

/** Writes a skill folder: relative path → text. */
async function skill(name: string, files: Record<string, string>): Promise<string> {
  const dir = join(root, name);
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), content);
  }
  return dir;
}

/** Milliseconds one audit of `dir` takes, averaged over calls adding up to at least 20 ms. */
async function perAudit(dir: string): Promise<number> {
  const start = performance.now();
  let calls = 0;
  let elapsed = 0;
  do {
    await auditSkill(dir);
    calls++;
    elapsed = performance.now() - start;
  } while (elapsed < 20);
  return elapsed / calls;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1] ?? 0;
}

/** How much longer the audit of the input at size 2n takes than at size n: median of 5 each, interleaved. */
async function growth(make: (n: number) => Record<string, string>, name: string, n: number): Promise<number> {
  const small = await skill(`${name}-${n}`, make(n));
  const large = await skill(`${name}-${2 * n}`, make(2 * n));
  await auditSkill(small);
  await auditSkill(large);
  const times: [number[], number[]] = [[], []];
  for (let round = 0; round < 5; round++) {
    times[0].push(await perAudit(small));
    times[1].push(await perAudit(large));
  }
  return median(times[1]) / median(times[0]);
}

const N = 20_000;

describe("audit time grows linearly with the input", () => {
  it.each<[string, (n: number) => Record<string, string>]>([
    // \s*\(*\s* split the blanks after `iex` every possible way
    ["`iex` and a run of blanks", (n) => ({ "SKILL.md": `${HEAD}iex${" ".repeat(n)}\n` })],
    // \S+= split `a=a=a=…` at every `=`
    ["`curl x | env a=a=a=…`", (n) => ({ "SKILL.md": `${HEAD}curl x | env ${"a=".repeat(n)}\n` })],
    // /[.:]+$/ retried from every dot of the host
    ["a URL host of dots", (n) => ({ "SKILL.md": `${HEAD}see http://${".".repeat(n)}x\n` })],
    // (?:\s[^>\n]*)?> scanned to the end of the line from every tag
    [
      "a description of unclosed `<system `",
      (n) => ({ "SKILL.md": `---\nname: demo\ndescription: "${"<system ".repeat(n / 2)}"\n---\nBody\n` }),
    ],
    // `read` inside `-read` started a scan of all the options after it
    [
      "`read -read -read …` in a shell script",
      (n) => ({ "SKILL.md": HEAD, "run.sh": `read${" -read".repeat(n / 2)} \n` }),
    ],
    // `sh` inside `-sh` started a scan of all the options after it
    ["`sh -sh -sh …`", (n) => ({ "SKILL.md": `${HEAD}sh${" -sh".repeat(n / 2)}\n` })],
  ])("%s", { timeout: 120_000 }, async (what, make) => {
    // A burst of load on a shared machine can stretch one measurement; a quadratic rule is 4×
    // every time, so it never passes on a second look.
    const ratios: number[] = [];
    for (let attempt = 0; attempt < 3 && !ratios.some((r) => r <= 3); attempt++) {
      ratios.push(await growth(make, `${what.replace(/\W+/g, "-")}-${attempt}`, N));
    }
    const best = Math.min(...ratios);
    expect(
      best,
      `doubling the input multiplied the audit time by ${ratios.map((r) => r.toFixed(2)).join(", ")}`,
    ).toBeLessThanOrEqual(3);
  });
});
