import { mkdir, mkdtemp, rm, symlink, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadSkillFile } from "../parse/parse-skill.js";
import type { SkillSource } from "../spec/skill-source.js";
import { fileHeadCache } from "./head-cache.js";
import { SkillService } from "./service.js";
import { codexSidecarUserOnly, sharedReads } from "./shared-reads.js";

const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "skill-core-codex-policy-"));
  dirs.push(dir);
  return dir;
}
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/** Well before any head is stored: the racily-clean rule does not apply. */
const PAST = new Date(Date.now() - 3_600_000);

/** A skill folder `name` under `root`, with `openai` as its `agents/openai.yaml` when given. */
async function skill(root: string, name: string, openai?: string): Promise<string> {
  const dir = join(root, name);
  await mkdir(join(dir, "agents"), { recursive: true });
  const file = join(dir, "SKILL.md");
  await writeFile(file, `---\nname: ${name}\ndescription: The ${name} skill\n---\n# ${name}\n`);
  await utimes(file, PAST, PAST);
  if (openai !== undefined) await sidecar(root, name, openai, PAST);
  return file;
}

async function sidecar(root: string, name: string, text: string, when: Date): Promise<void> {
  const file = join(root, name, "agents", "openai.yaml");
  await writeFile(file, text);
  await utimes(file, when, when);
}

/** A source listing every `<root>/<name>/SKILL.md` of `names`. */
function folderSource(root: string, names: readonly string[]): SkillSource {
  return {
    id: "tree",
    async scan() {
      return { entries: names.map((n) => ({ location: join(root, n, "SKILL.md") })), dirs: [root] };
    },
  };
}

const USER_ONLY = "interface:\n  display_name: Deploy\npolicy:\n  allow_implicit_invocation: false\n";

async function invocable(service: SkillService): Promise<Record<string, boolean>> {
  await service.discoverAndLoad();
  return Object.fromEntries(service.all().map((s) => [s.name, s.modelInvocable]));
}

describe("codexPolicy: Codex's agents/openai.yaml", () => {
  it("makes modelInvocable false for policy.allow_implicit_invocation: false, only under the rule", async () => {
    const root = await tempDir();
    await skill(root, "flow", "policy: { allow_implicit_invocation: false }\n");
    await skill(root, "block", USER_ONLY);
    await skill(root, "allowed", "policy:\n  allow_implicit_invocation: true\n");
    // Codex 0.171 reads a boolean: the string fails its parse of the whole file, and it lists the skill to the model.
    await skill(root, "string", 'policy:\n  allow_implicit_invocation: "false"\n');
    await skill(root, "top-level", "allow_implicit_invocation: false\n");
    await skill(root, "broken", "policy: [unclosed\n");
    await skill(root, "none");
    const names = ["flow", "block", "allowed", "string", "top-level", "broken", "none"];
    const codex = await invocable(
      new SkillService({ sources: [folderSource(root, names)], codexPolicy: true }),
    );
    expect(codex).toEqual({
      allowed: true,
      block: false,
      broken: true,
      flow: false,
      none: true,
      string: true,
      "top-level": true,
    });
    const plain = await invocable(new SkillService({ sources: [folderSource(root, names)] }));
    expect(Object.values(plain).every(Boolean)).toBe(true);
  });

  it("keeps the answer on read(), in loadSkillFile and for loads sharing reads", async () => {
    const root = await tempDir();
    const file = await skill(root, "deploy", USER_ONLY);
    const service = new SkillService({ sources: [folderSource(root, ["deploy"])], codexPolicy: true });
    await service.discoverAndLoad();
    expect((await service.read("deploy")).modelInvocable).toBe(false);
    expect((await loadSkillFile(file, { codexPolicy: true })).skill.modelInvocable).toBe(false);
    expect((await loadSkillFile(file)).skill.modelInvocable).toBe(true);
    const reads = sharedReads();
    const shared = new SkillService({
      sources: [folderSource(root, ["deploy"])],
      codexPolicy: true,
      sharedReads: reads,
    });
    expect(await invocable(shared)).toEqual({ deploy: false });
    expect(codexSidecarUserOnly(file, { sharedReads: reads })).toBe(true);
    expect(codexSidecarUserOnly(join(root, "missing", "SKILL.md"))).toBe(false);
  });

  it("trusts a caller's listing of the skill folders: asks for a sidecar only where an agents entry was listed", async () => {
    const root = await tempDir();
    for (const name of ["listed", "cased", "unlisted", "told-none"]) await skill(root, name, USER_ONLY);
    const listings: Record<string, readonly string[]> = {
      [join(root, "listed")]: ["SKILL.md", "agents"],
      [join(root, "cased")]: ["SKILL.md", "Agents"],
      // A listing that says there is none is believed: it is of the same moment as the load.
      [join(root, "told-none")]: ["SKILL.md"],
    };
    const reads = sharedReads({ listed: (folder) => listings[folder] });
    const service = new SkillService({
      sources: [folderSource(root, ["listed", "cased", "unlisted", "told-none"])],
      codexPolicy: true,
      sharedReads: reads,
    });
    expect(await invocable(service)).toEqual({
      cased: false,
      listed: false,
      "told-none": true,
      unlisted: false,
    });
  });

  it("does not follow a sidecar linked out of the skill folder", async () => {
    const root = await tempDir();
    await skill(root, "linked");
    const outside = join(root, "outside.yaml");
    await writeFile(outside, USER_ONLY);
    await symlink(outside, join(root, "linked", "agents", "openai.yaml"));
    const service = new SkillService({ sources: [folderSource(root, ["linked"])], codexPolicy: true });
    expect(await invocable(service)).toEqual({ linked: true });
  });

  it("keys a cached head on the sidecar's state: edited, deleted or created, the next warm load sees it", async () => {
    const root = await tempDir();
    await skill(root, "deploy", USER_ONLY);
    await skill(root, "plain");
    const cacheFile = join(root, "cache", "heads.json");
    const load = async () => {
      const service = new SkillService({
        sources: [folderSource(root, ["deploy", "plain"])],
        codexPolicy: true,
        headCache: fileHeadCache(cacheFile),
      });
      return invocable(service);
    };
    expect(await load()).toEqual({ deploy: false, plain: true });
    // Warm: the heads come from the cache, and still say what the sidecars say.
    expect(await load()).toEqual({ deploy: false, plain: true });

    await sidecar(
      root,
      "deploy",
      "policy:\n  allow_implicit_invocation: true\n",
      new Date(PAST.getTime() + 1_000),
    );
    expect(await load()).toEqual({ deploy: true, plain: true });
    await sidecar(root, "deploy", USER_ONLY, new Date(PAST.getTime() + 2_000));
    expect(await load()).toEqual({ deploy: false, plain: true });
    await rm(join(root, "deploy", "agents", "openai.yaml"));
    expect(await load()).toEqual({ deploy: true, plain: true });
    await sidecar(root, "plain", USER_ONLY, new Date(PAST.getTime() + 3_000));
    expect(await load()).toEqual({ deploy: true, plain: false });
    // A load without the rule ignores the heads stored under it, and the sidecars.
    const plainRules = new SkillService({
      sources: [folderSource(root, ["deploy", "plain"])],
      headCache: fileHeadCache(cacheFile),
    });
    expect(await invocable(plainRules)).toEqual({ deploy: true, plain: true });
  });
});
