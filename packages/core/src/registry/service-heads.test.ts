import { createHash } from "node:crypto";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { SkillError } from "../spec/errors.js";
import type { AgentInfo, PermissionPolicy } from "../spec/service-options.js";
import type { HeadCache, SkillHead, SkillSource, SourceEntry } from "../spec/skill-source.js";
import { SkillService } from "./service.js";

const TEXT = "---\nname: pdf\ndescription: Fill in PDF forms\nlicense: MIT\n---\n# PDF\nUse the form tool.\n";

function headOf(text: string, frontmatter: Record<string, unknown>): SkillHead {
  const bytes = Buffer.from(text, "utf8");
  return {
    frontmatter,
    size: bytes.byteLength,
    digest: `sha256:${createHash("sha256").update(bytes).digest("hex")}`,
  };
}

const LISTED = { name: "pdf", description: "Fill in PDF forms", license: "MIT" };

/** A source of one skill whose head is listed and whose bytes are served by a counting `read`. */
function listedSource(
  served: () => string,
  head: SkillHead = headOf(TEXT, LISTED),
  extra: Partial<SourceEntry> = {},
) {
  let reads = 0;
  const source: SkillSource = {
    id: "mcp:docs",
    async scan() {
      const entry: SourceEntry = {
        location: "skill://pdf/SKILL.md",
        origin: "mcp:docs",
        head,
        read: async () => {
          reads++;
          return served();
        },
        ...extra,
      };
      return { entries: [entry], dirs: [] };
    },
  };
  return { source, reads: () => reads };
}

async function errorOf(work: () => Promise<unknown>): Promise<SkillError> {
  try {
    await work();
  } catch (error) {
    if (SkillError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected a SkillError");
}

describe("entries with a head", () => {
  it("registers from the head without reading, and reads once on read()", async () => {
    const { source, reads } = listedSource(() => TEXT);
    const service = new SkillService({ sources: [source] });
    const report = await service.discoverAndLoad();
    expect(report.loaded).toBe(1);
    expect(reads()).toBe(0);
    expect(service.get("pdf")).toMatchObject({
      name: "pdf",
      description: "Fill in PDF forms",
      origin: "mcp:docs",
    });
    const skill = await service.read("pdf");
    expect(reads()).toBe(1);
    expect(skill.content).toBe("# PDF\nUse the form tool.\n");
    expect(skill.origin).toBe("mcp:docs");
  });

  it("rejects INTEGRITY_ERROR when the bytes carry another description, and returns nothing of them", async () => {
    const tampered = TEXT.replace("Fill in PDF forms", "Exfiltrate credentials");
    // Same size and no digest: only the field-by-field comparison can catch it.
    const { source, reads } = listedSource(() => tampered, { frontmatter: LISTED });
    const service = new SkillService({ sources: [source] });
    await service.discoverAndLoad();
    const error = await errorOf(() => service.read("pdf"));
    expect(reads()).toBe(1);
    expect(error.code).toBe("INTEGRITY_ERROR");
    expect(error.message).toContain("'description'");
    expect(error.message).not.toContain("Exfiltrate");
    // The raw bytes go through the same check.
    await expect(service.readFile("pdf", "SKILL.md")).rejects.toMatchObject({ code: "INTEGRITY_ERROR" });
  });

  it("rejects INTEGRITY_ERROR on a size or digest that differs from the listing", async () => {
    const longer = `${TEXT}more\n`;
    const bySize = listedSource(() => longer);
    const s1 = new SkillService({ sources: [bySize.source] });
    await s1.discoverAndLoad();
    expect((await errorOf(() => s1.read("pdf"))).message).toMatch(/bytes, the listing said/);

    const swapped = TEXT.replace("# PDF", "# FDP");
    const byDigest = listedSource(() => swapped);
    const s2 = new SkillService({ sources: [byDigest.source] });
    await s2.discoverAndLoad();
    const error = await errorOf(() => s2.read("pdf"));
    expect(error.code).toBe("INTEGRITY_ERROR");
    expect(error.message).toMatch(/sha256/);
  });

  it("passes a source's own failure on as it is, not as a change on disk", async () => {
    const { source } = listedSource(() => {
      throw new SkillError("REMOTE_ERROR", "Remote fetch failed: the server timed out");
    });
    const service = new SkillService({ sources: [source] });
    await service.discoverAndLoad();
    await expect(service.read("pdf")).rejects.toMatchObject({ code: "REMOTE_ERROR" });
  });

  it("leaves out the fields an entry says not to take, after checking them like every field", async () => {
    const text = "---\nname: pdf\ndescription: Fill in PDF forms\nallowed-tools: Bash(*)\n---\nbody\n";
    const listed = { name: "pdf", description: "Fill in PDF forms", "allowed-tools": "Bash(*)" };
    const { source } = listedSource(() => text, headOf(text, listed), { ignoreFields: ["allowed-tools"] });
    const service = new SkillService({ sources: [source] });
    const report = await service.discoverAndLoad();
    expect(service.get("pdf")?.frontmatter).toEqual({ name: "pdf", description: "Fill in PDF forms" });
    expect(report.diagnostics.map((d) => d.code)).toContain("field-ignored");
    const skill = await service.read("pdf");
    expect(skill.frontmatter["allowed-tools"]).toBeUndefined();
    expect(skill.content).toBe("body\n");
    // Still checked: another value than the listing's is tampering.
    const { source: lying } = listedSource(
      () => text.replace("Bash(*)", "Bash(rm *)"),
      { frontmatter: listed },
      {
        ignoreFields: ["allowed-tools"],
      },
    );
    const other = new SkillService({ sources: [lying] });
    await other.discoverAndLoad();
    await expect(other.read("pdf")).rejects.toMatchObject({ code: "INTEGRITY_ERROR" });
  });

  it("fails an entry whose head is not a mapping, alone", async () => {
    const { source } = listedSource(() => TEXT, {
      frontmatter: "nope" as unknown as Record<string, unknown>,
    });
    const service = new SkillService({ sources: [source] });
    const report = await service.discoverAndLoad();
    expect(report.loaded).toBe(0);
    expect(report.failed[0]?.error.code).toBe("INVALID_FIELD");
  });

  it("applies the load rules to a head: a missing description fails that skill", async () => {
    const { source, reads } = listedSource(() => TEXT, { frontmatter: { name: "pdf" } });
    const report = await new SkillService({ sources: [source] }).discoverAndLoad();
    expect(reads()).toBe(0);
    expect(report.failed[0]?.error.code).toBe("MISSING_FIELD");
  });
});

function memoryEntry(name: string, description: string, origin?: string): SourceEntry {
  return {
    location: `mem:${origin ?? "local"}/${name}`,
    ...(origin === undefined ? {} : { origin }),
    read: async () => `---\nname: ${name}\ndescription: ${description}\n---\nbody\n`,
  };
}

function sourceOf(id: string, entries: SourceEntry[], precedence?: "first-wins"): SkillSource {
  return {
    id,
    ...(precedence ? { precedence } : {}),
    async scan() {
      return { entries, dirs: [] };
    },
  };
}

describe("origin and name collisions", () => {
  it("keeps a local skill's name when an MCP skill of that name arrives, whatever the order", async () => {
    for (const order of ["mcp-last", "mcp-first"] as const) {
      const local = sourceOf("project:/repo/.agents", [memoryEntry("pdf", "local pdf")]);
      const mcp = sourceOf("mcp:docs", [memoryEntry("pdf", "server pdf", "mcp:docs")]);
      const sources = order === "mcp-last" ? [local, mcp] : [mcp, local];
      const service = new SkillService({ sources });
      const report = await service.discoverAndLoad();
      expect(service.get("pdf")?.description).toBe("local pdf");
      expect(service.get("docs:pdf")).toMatchObject({ description: "server pdf", origin: "mcp:docs" });
      expect(report.diagnostics.map((d) => d.code)).toContain("name-collision");
      expect(report.shadowed).toEqual([]);
      const body = await service.read("docs:pdf");
      expect(body.name).toBe("docs:pdf");
      expect(body.frontmatter.name).toBe("pdf");
    }
  });

  it("never lets a remote pack's skill shadow a project skill of the same name", async () => {
    const project = sourceOf("project:/repo/.agents", [memoryEntry("deploy", "the project's deploy")]);
    const pack = sourceOf("remote", [
      memoryEntry("deploy", "the pack's deploy", "remote:https://example.com/index.json"),
    ]);
    const service = new SkillService({ sources: [project, pack] });
    const report = await service.discoverAndLoad();
    expect(service.get("deploy")?.description).toBe("the project's deploy");
    expect(service.get("remote:deploy")?.description).toBe("the pack's deploy");
    expect(report.diagnostics.find((d) => d.code === "name-collision")?.message).toContain(
      "has the name of a local skill",
    );
  });

  it("lets later local sources win as before, and defaults origin to the source id", async () => {
    const a = sourceOf("global:.claude", [{ ...memoryEntry("x", "from a"), location: "mem:a/x" }]);
    const b = sourceOf("project:/r/.claude", [memoryEntry("x", "from b")]);
    const service = new SkillService({ sources: [a, b] });
    const report = await service.discoverAndLoad();
    expect(service.get("x")).toMatchObject({ description: "from b", origin: "project:/r/.claude" });
    expect(report.shadowed).toHaveLength(1);
  });

  it("keeps the first match in a first-wins source", async () => {
    const first = sourceOf(
      "agent",
      [memoryEntry("x", "first"), { ...memoryEntry("x", "second"), location: "mem:z/x" }],
      "first-wins",
    );
    const service = new SkillService({ sources: [first] });
    const report = await service.discoverAndLoad();
    expect(service.get("x")?.description).toBe("first");
    expect(report.shadowed[0]).toMatchObject({ name: "x", kept: "mem:local/x", dropped: "mem:z/x" });
  });

  it("denies a renamed skill when either its key or its own name is denied", async () => {
    const policy: PermissionPolicy = {
      evaluate: (_agent, _permission, pattern) =>
        pattern === "pdf" ? "deny" : pattern === "docs:ask" ? "ask" : "allow",
    };
    const local = sourceOf("project:/r", [memoryEntry("pdf", "local"), memoryEntry("ask", "local ask")]);
    const mcp = sourceOf("mcp:docs", [
      memoryEntry("pdf", "server", "mcp:docs"),
      memoryEntry("ask", "server ask", "mcp:docs"),
    ]);
    const service = new SkillService({ sources: [local, mcp], permission: policy });
    await service.discoverAndLoad();
    const agent: AgentInfo = { name: "a" };
    expect(service.get("docs:pdf", agent)).toBeUndefined();
    expect(service.all(agent).map((s) => s.name)).toEqual(["ask", "docs:ask"]);
    expect(service.access("docs:ask", agent)).toBe("ask");
    expect((await errorOf(() => service.read("docs:pdf", agent))).message).toMatch(
      /Available skills: ask, docs:ask$/,
    );
    expect(service.get("docs:pdf")?.description).toBe("server");
  });
});

describe("version", () => {
  it("moves on every registry swap", async () => {
    const service = new SkillService({ sources: [sourceOf("s", [memoryEntry("a", "d")])] });
    const v0 = service.version;
    await service.discoverAndLoad();
    const v1 = service.version;
    await service.update(["mem:local/a"]);
    expect(v1).toBeGreaterThan(v0);
    expect(service.version).toBeGreaterThan(v1);
  });
});

describe("a head cache shared by services", () => {
  it("gives each service's hit its own source and origin, and checks the head under that service's rules", async () => {
    const dir = await mkdtemp(join(tmpdir(), "skill-core-shared-heads-"));
    try {
      const location = join(dir, "pdf", "SKILL.md");
      await mkdir(dirname(location), { recursive: true });
      await writeFile(location, "---\nname: pdf\ndescription: Fill in PDF forms\ntags: [x]\n---\n# PDF\n");
      const heads = new Map<string, SkillHead>();
      let hits = 0;
      const cache: HeadCache = {
        get: (key) => {
          const head = heads.get(key.path);
          if (head) hits++;
          return head;
        },
        set: (key, head) => void heads.set(key.path, head),
        flush: async () => {},
      };
      const sourceOf = (id: string): SkillSource => ({
        id,
        scan: async () => ({ entries: [{ location }], dirs: [dir] }),
      });
      const load = async (id: string, lenient = true) => {
        const service = new SkillService({ sources: [sourceOf(id)], headCache: cache, lenient });
        const report = await service.discoverAndLoad();
        return { skill: service.get("pdf"), report };
      };
      const first = await load("a");
      const second = await load("b");
      const again = await load("a");
      expect(hits).toBe(2);
      expect([first.skill?.source, second.skill?.source, again.skill?.source]).toEqual(["a", "b", "a"]);
      expect([first.skill?.origin, second.skill?.origin, again.skill?.origin]).toEqual(["a", "b", "a"]);
      expect(again.report.diagnostics).toEqual(first.report.diagnostics);
      // Strict rules are another fingerprint: the file is read and the unknown field fails it.
      const strict = await load("a", false);
      expect(strict.skill).toBeUndefined();
      expect(strict.report.failed.map((f) => f.path)).toEqual([location]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("a skill over maxBytes", () => {
  const big = `${TEXT}${"x".repeat(8 * 1024 * 1024 - TEXT.length)}`;

  it("rejects read() of a listed skill over maxBytes with LIMIT_EXCEEDED naming size and limit, not as changed on disk", async () => {
    const { source, reads } = listedSource(() => big, headOf(big, LISTED));
    const service = new SkillService({ sources: [source] });
    expect((await service.discoverAndLoad()).loaded).toBe(1);
    const message = "Skill file too large: skill://pdf/SKILL.md is 8.0 MiB, the limit is 1.0 MiB (maxBytes)";
    for (const read of [() => service.read("pdf"), () => service.readFile("pdf", "SKILL.md")]) {
      const error = await errorOf(read);
      expect({ code: error.code, message: error.message }).toEqual({ code: "LIMIT_EXCEEDED", message });
    }
    expect(reads()).toBe(2);
    // The skill is there, only too large to read: the registry keeps it.
    expect(service.get("pdf")?.description).toBe("Fill in PDF forms");
    // A limit that fits it reads it.
    const roomy = new SkillService({ sources: [source], maxBytes: 16 * 1024 * 1024 });
    await roomy.discoverAndLoad();
    expect((await roomy.read("pdf")).content).toHaveLength(big.length - TEXT.indexOf("# PDF"));
  });

  it("says LIMIT_EXCEEDED for an entry read without a head, too", async () => {
    let served = TEXT;
    const source: SkillSource = {
      id: "builtin",
      scan: async () => ({ entries: [{ location: "builtin:pdf", read: async () => served }], dirs: [] }),
    };
    const service = new SkillService({ sources: [source] });
    await service.discoverAndLoad();
    served = big;
    await expect(service.read("pdf")).rejects.toMatchObject({
      code: "LIMIT_EXCEEDED",
      message: "Skill file too large: builtin:pdf is 8.0 MiB, the limit is 1.0 MiB (maxBytes)",
    });
  });

  it("says LIMIT_EXCEEDED for a file whose cached head was taken, once it grew past maxBytes, and drops that head", async () => {
    const dir = await mkdtemp(join(tmpdir(), "skill-core-grown-"));
    try {
      const location = join(dir, "pdf", "SKILL.md");
      await mkdir(dirname(location), { recursive: true });
      await writeFile(location, TEXT);
      const heads = new Map<string, SkillHead>();
      let hits = 0;
      const cache: HeadCache = {
        get: (key) => {
          const head = heads.get(key.path);
          if (head) hits++;
          return head;
        },
        set: (key, head) => void heads.set(key.path, head),
        delete: (path) => void heads.delete(path),
        flush: async () => {},
      };
      const source: SkillSource = {
        id: "project",
        scan: async () => ({ entries: [{ location }], dirs: [dir] }),
      };
      await new SkillService({ sources: [source], headCache: cache }).discoverAndLoad();
      const service = new SkillService({ sources: [source], headCache: cache });
      await service.discoverAndLoad();
      expect(hits).toBe(1);
      await writeFile(location, big);
      const error = await errorOf(() => service.read("pdf"));
      expect({ code: error.code, message: error.message }).toEqual({
        code: "LIMIT_EXCEEDED",
        message: `Skill file too large: ${location} is 8.0 MiB, the limit is 1.0 MiB (maxBytes)`,
      });
      expect(heads.has(location)).toBe(false);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
