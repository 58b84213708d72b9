import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { corpora, sharedCorpusMissing } from "../../../fixtures/corpus.mjs";
import { auditSkill } from "./audit.js";

// Precision and recall of `credential-read` and `exfil` on a labelled set: every real skill
// of the corpora, and hand-made skills (__fixtures__/labelled) with the prose that made false
// alarms and the exfiltration the rules are for. The README's table comes from this test.

const LABELLED = join(dirname(fileURLToPath(import.meta.url)), "__fixtures__", "labelled");
const labels = JSON.parse(readFileSync(join(LABELLED, "labels.json"), "utf8")) as {
  readonly "credential-read": readonly string[];
  readonly exfil: readonly string[];
};

/** Skill folders of the set: `source:folder` → absolute folder. */
function skills(): Map<string, string> {
  const found = new Map<string, string>();
  for (const corpus of corpora)
    for (const { path } of corpus.expected.skills)
      found.set(`${corpus.label}:${dirname(path)}`, join(corpus.dir, dirname(path)));
  for (const entry of readdirSync(LABELLED, { withFileTypes: true }))
    if (entry.isDirectory()) found.set(`labelled:${entry.name}`, join(LABELLED, entry.name));
  return found;
}

interface Score {
  readonly falseAlarms: string[];
  readonly missed: string[];
  readonly precision: string;
  readonly recall: string;
}

function score(found: ReadonlySet<string>, expected: readonly string[], sources: readonly string[]): Score {
  const wanted = new Set(expected.filter((key) => sources.some((s) => key.startsWith(`${s}:`))));
  const hits = [...found].filter((key) => wanted.has(key)).length;
  const ratio = (n: number, d: number) => (d === 0 ? "-" : `${n}/${d}`);
  return {
    falseAlarms: [...found].filter((key) => !wanted.has(key)).sort(),
    missed: [...wanted].filter((key) => !found.has(key)).sort(),
    precision: ratio(hits, found.size),
    recall: ratio(hits, wanted.size),
  };
}

async function audit(): Promise<{ readonly credential: Score; readonly exfil: Score }> {
  const credential = new Set<string>();
  const exfil = new Set<string>();
  for (const [key, dir] of skills()) {
    for (const f of (await auditSkill(dir)).findings) {
      if (f.rule === "credential-read") credential.add(`${key}/${f.path}:${f.line}`);
      if (f.rule === "exfil") exfil.add(`${key}/${f.path}`);
    }
  }
  const sources = ["labelled", ...corpora.map((c) => c.label)];
  return {
    credential: score(credential, labels["credential-read"], sources),
    exfil: score(exfil, labels.exfil, sources),
  };
}

describe("credential-read and exfil on the labelled set", () => {
  it("finds the reads and the exfiltration in code, and says nothing of prose that names .env", async () => {
    const { credential, exfil } = await audit();
    // Token sent to the service it is for, after `source .env` in a code span: the rule cannot
    // tell that from theft.
    expect(exfil.falseAlarms).toEqual(["labelled:prose-source-inline/SKILL.md"]);
    // An instruction in prose to send ~/.aws/credentials is prose, which the rules leave to
    // the reader (and to the description and hidden-text rules).
    expect(exfil.missed).toEqual(["labelled:prose-instruction/SKILL.md"]);
    expect(credential.falseAlarms).toEqual([]);
    expect(credential.missed).toEqual(["labelled:prose-instruction/SKILL.md:7"]);
    expect(exfil).toMatchObject({ precision: "6/7", recall: "6/7" });
    if (!sharedCorpusMissing) expect(credential).toMatchObject({ precision: "15/15", recall: "15/16" });
  });
});

if (sharedCorpusMissing) it.skip(sharedCorpusMissing, () => {});
