import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SkillError } from "../spec/errors.js";
import type { AgentInfo, PermissionAction, PermissionPolicy } from "../spec/service-options.js";
import type { SkillSource } from "../spec/skill-source.js";
import { SkillService } from "./service.js";

const DENIED = ["internal-deploy", "internal-secrets"];
const VISIBLE = ["public", "release-notes"];

let root: string;
let service: SkillService;
const review: AgentInfo = { name: "review" };
const build: AgentInfo = { name: "build" };

/** review may not see internal-*; release-* needs confirmation; everything else is allowed. */
const policy: PermissionPolicy = {
  evaluate(agent, permission, pattern): PermissionAction {
    if (permission !== "skill") return "allow";
    if (agent.name === "review" && pattern.startsWith("internal-")) return "deny";
    return pattern.startsWith("release-") ? "ask" : "allow";
  },
};

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "skill-core-permissions-"));
  for (const name of [...DENIED, ...VISIBLE]) {
    const path = join(root, name, "SKILL.md");
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, `---\nname: ${name}\ndescription: About ${name}\n---\nbody of ${name}\n`);
    await writeFile(join(root, name, "notes.md"), "notes");
  }
  const source: SkillSource = {
    id: "s",
    async scan() {
      const entries = [...DENIED, ...VISIBLE]
        .sort()
        .map((name) => ({ location: join(root, name, "SKILL.md") }));
      return { entries, dirs: [root] };
    },
  };
  service = new SkillService({ sources: [source], permission: policy });
  await service.discoverAndLoad();
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function errorOf(work: () => unknown): Promise<SkillError> {
  try {
    await work();
  } catch (error) {
    if (SkillError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected a SkillError");
}

function namesNoDenied(message: string, asked: string): void {
  const rest = message.split(`"${asked}"`).join("");
  for (const name of DENIED) expect(rest).not.toContain(name);
}

describe("a denied skill is, for that agent, missing", () => {
  it("all(agent) leaves it out; all() and another agent still see it", () => {
    expect(service.all(review).map((s) => s.name)).toEqual(VISIBLE);
    expect(service.all(build).map((s) => s.name)).toEqual([...DENIED, ...VISIBLE].sort());
    expect(service.all()).toHaveLength(4);
  });

  it("get(name, agent) answers undefined, as for an unknown name", () => {
    for (const name of DENIED) {
      expect(service.get(name, review)).toBeUndefined();
      expect(service.get(name, build)?.name).toBe(name);
    }
    expect(service.get("nope", review)).toBeUndefined();
  });

  it("require(name, agent) throws the same NOT_FOUND as for an unknown name, naming no denied skill", async () => {
    const unknown = await errorOf(() => service.require("nope", review));
    expect(unknown.code).toBe("NOT_FOUND");
    expect(unknown.message).toBe('Skill "nope" not found. Available skills: public, release-notes');
    for (const name of DENIED) {
      const denied = await errorOf(() => service.require(name, review));
      expect(denied.code).toBe("NOT_FOUND");
      expect(denied.message).toBe(unknown.message.replace('"nope"', `"${name}"`));
      namesNoDenied(denied.message, name);
    }
    expect(service.require("internal-deploy", build).name).toBe("internal-deploy");
  });

  it("read(name, agent) rejects NOT_FOUND without reading the body", async () => {
    for (const name of DENIED) {
      const error = await errorOf(() => service.read(name, review));
      expect(error.code).toBe("NOT_FOUND");
      expect(error.message).not.toContain("body of");
      namesNoDenied(error.message, name);
      expect(error.path).toBeUndefined();
    }
    expect((await service.read("internal-secrets", build)).content).toBe("body of internal-secrets\n");
    expect((await service.read("public", review)).content).toBe("body of public\n");
  });

  it("files(name, agent) rejects NOT_FOUND and lists nothing", async () => {
    for (const name of DENIED) {
      const error = await errorOf(() => service.files(name, review));
      expect(error.code).toBe("NOT_FOUND");
      namesNoDenied(error.message, name);
    }
    expect(await service.files("internal-deploy", build)).toEqual(["notes.md"]);
  });

  it("access(name, agent) is undefined for a denied or unknown skill, ask or allow otherwise", () => {
    for (const name of DENIED) expect(service.access(name, review)).toBeUndefined();
    expect(service.access("nope", review)).toBeUndefined();
    expect(service.access("release-notes", review)).toBe("ask");
    expect(service.access("public", review)).toBe("allow");
    expect(service.access("internal-deploy", build)).toBe("allow");
  });

  it("lists at most 20 names in NOT_FOUND, then says how many more", async () => {
    const many = Array.from({ length: 25 }, (_, i) => `skill-${String(i).padStart(2, "0")}`);
    const source: SkillSource = {
      id: "memory",
      async scan() {
        return {
          entries: many.map((name) => ({
            location: `test:${name}`,
            read: async () => `---\nname: ${name}\ndescription: d\n---\n`,
          })),
          dirs: [],
        };
      },
    };
    const big = new SkillService({ sources: [source] });
    await big.discoverAndLoad();
    const error = await errorOf(() => big.require("nope"));
    expect(error.message).toBe(
      `Skill "nope" not found. Available skills: ${many.slice(0, 20).join(", ")} and 5 more`,
    );
  });
});

describe("did you mean", () => {
  it("names similar skills the agent may see, never a denied one", async () => {
    const typo = await errorOf(() => service.read("publik", review));
    expect(typo.message).toBe(
      'Skill "publik" not found. Did you mean "public"? Available skills: public, release-notes',
    );
    const denied = await errorOf(() => service.read("internal-deploi", review));
    expect(denied.message).toBe('Skill "internal-deploi" not found. Available skills: public, release-notes');
  });
});
