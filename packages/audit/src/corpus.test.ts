import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { type Corpus, corpora, SHARED_CORPUS, sharedCorpusMissing } from "../../../fixtures/corpus.mjs";
import { auditSkill } from "./audit.js";
import type { AuditFinding, AuditResult } from "./types.js";

const shared = corpora.find((c) => c.dir === SHARED_CORPUS);
const fixture = corpora[0] as Corpus;

interface Audited {
  readonly skill: string; // folder of the SKILL.md, relative to corpus/real
  readonly result: AuditResult;
}

async function auditCorpus(corpus: Corpus = shared as Corpus): Promise<Audited[]> {
  const audited: Audited[] = [];
  for (const { path } of corpus.expected.skills) {
    const dir = dirname(path);
    audited.push({ skill: dir.replace(/^real\//, ""), result: await auditSkill(join(corpus.dir, dir)) });
  }
  return audited;
}

function where(audited: readonly Audited[], rule: string): string[] {
  return audited.flatMap(({ skill, result }) =>
    result.findings.filter((f: AuditFinding) => f.rule === rule).map((f) => `${skill}/${f.path}:${f.line}`),
  );
}

describe("auditSkill over the committed corpus", () => {
  it("audits every skill of fixtures/corpus completely, with no finding (none of them pipes to a shell or reads a secret)", async () => {
    const audited = await auditCorpus(fixture);
    expect(audited).toHaveLength(fixture.expected.summary.skills);
    expect(audited.every((a) => a.result.complete)).toBe(true);
    expect(audited.flatMap((a) => a.result.findings)).toEqual([]);
  });
});

describe.skipIf(!shared)("auditSkill over ../shared/corpus", () => {
  it("finds what is really there in the 68 real skills, and nothing else", async () => {
    const audited = await auditCorpus();
    expect(audited).toHaveLength(68);
    expect(audited.every((a) => a.result.complete)).toBe(true);

    const counts: Record<string, number> = {};
    for (const { result } of audited)
      for (const f of result.findings) counts[f.rule] = (counts[f.rule] ?? 0) + 1;
    expect(counts).toEqual({ "remote-exec": 3, "credential-read": 8 });

    // The two skills that really pipe a download into a shell.
    expect(where(audited, "remote-exec")).toEqual([
      "google-gemini-gemini-cli/.gemini/skills/agent-tui/SKILL.md:68",
      "google-gemini-gemini-cli/packages/core/src/skills/builtin/antigravity-support/SKILL.md:41",
      "google-gemini-gemini-cli/packages/core/src/skills/builtin/antigravity-support/SKILL.md:52",
    ]);
    // Reading a token out of .env, in code: the Vercel token skill and the eval runner's
    // instructions. `--exclude='.env'` in deploy.sh and `.env.example` in claude-api are not
    // reads, nor is prose that names `.env` ("Look in … `.env` files first", lines 302, 314).
    expect(where(audited, "credential-read")).toEqual([
      "google-gemini-gemini-cli/.gemini/skills/behavioral-evals/references/running.md:22",
      ...[28, 34, 42, 48, 77, 78, 318].map(
        (line) => `vercel-labs-agent-skills/skills/vercel-cli-with-tokens/SKILL.md:${line}`,
      ),
    ]);
  });

  it("reads capabilities that match the files: scripts, hosts and environment", async () => {
    const audited = await auditCorpus();
    const of = (suffix: string) => audited.find((a) => a.skill.endsWith(suffix))?.result.capabilities;
    expect(of("anthropics-skills/skills/webapp-testing")?.executables).toEqual([
      "examples/console_logging.py",
      "examples/element_discovery.py",
      "examples/static_html_automation.py",
      "scripts/with_server.py",
    ]);
    expect(of("antigravity-support")?.hosts).toEqual(["antigravity.google"]);
    expect(of(".system/skill-installer")?.env).toEqual(["CODEX_HOME", "GH_TOKEN", "GITHUB_TOKEN"]);
    // No skill in the corpus declares tools, hooks or preprocessing commands.
    for (const { skill, result } of audited) {
      expect({ skill, tools: result.capabilities.tools }).toEqual({ skill, tools: [] });
      expect({ skill, hooks: result.capabilities.hooks }).toEqual({ skill, hooks: false });
      expect({ skill, commands: result.capabilities.commands }).toEqual({ skill, commands: [] });
    }
    // A licence file does not make a host: www.apache.org only where a skill names it elsewhere.
    expect(audited.filter((a) => a.result.capabilities.hosts.includes("www.apache.org"))).toEqual([]);
    expect(audited.filter((a) => a.result.capabilities.executables.length > 0)).toHaveLength(16);
  });
});

if (sharedCorpusMissing) it.skip(sharedCorpusMissing, () => {});
