import { mkdir, mkdtemp, readdir, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SkillError } from "../spec/errors.js";
import type { AgentInfo, PermissionPolicy } from "../spec/service-options.js";
import type { SkillSource } from "../spec/skill-source.js";
import { SkillService } from "./service.js";

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "skill-core-service-"));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function skill(
  dir: string,
  name: string,
  description = `About ${name}`,
  folder = name,
): Promise<string> {
  const path = join(root, dir, folder, "SKILL.md");
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, `---\nname: ${name}\ndescription: ${description}\n---\n# ${name}\n`);
  return path;
}

/** A minimal SkillSource over one folder: every SKILL.md below it, sorted. */
function folderSource(id: string, dir: string, delayMs = 0): SkillSource {
  return {
    id,
    async scan() {
      if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
      const entries = await readdir(join(root, dir), { recursive: true }).catch(() => [] as string[]);
      const files = entries
        .filter((e) => e.endsWith("SKILL.md"))
        .map((e) => join(root, dir, e))
        .sort();
      return { entries: files.map((location) => ({ location })), dirs: [join(root, dir)] };
    },
  };
}

function recorder() {
  const warnings: { message: string; fields?: object }[] = [];
  const events: { topic: string; payload: unknown }[] = [];
  return {
    warnings,
    events,
    logger: {
      warn: (message: string, fields?: object) => warnings.push(fields ? { message, fields } : { message }),
    },
    bus: { publish: (topic: string, payload: unknown) => events.push({ topic, payload }) },
  };
}

describe("SkillService", () => {
  it("loads a skill and gets it by name", async () => {
    const path = await skill("a", "test-skill", "A test skill");
    const service = new SkillService();
    const loaded = await service.load(path);
    expect(loaded).toMatchObject({ name: "test-skill", description: "A test skill", location: path });
    expect(service.get("test-skill")).toBe(loaded);
    expect(service.get("other")).toBeUndefined();
  });

  it("warns on a duplicate name and keeps the last one", async () => {
    const first = await skill("a", "dup", "first");
    const second = await skill("b", "dup", "second");
    const r = recorder();
    const service = new SkillService({ logger: r.logger, bus: r.bus });
    await service.load(first);
    await service.load(second);
    expect(service.get("dup")?.description).toBe("second");
    expect(r.warnings).toHaveLength(1);
    expect(r.warnings[0]?.message).toMatch(/^Duplicate skill name: dup/);
    expect(r.warnings[0]?.fields).toEqual({ code: "DUPLICATE_NAME", name: "dup", path: first });
    expect(r.events).toEqual([
      { topic: "skill.shadowed", payload: { name: "dup", kept: second, dropped: first } },
    ]);
  });

  it("gives later sources precedence and reports what they shadowed", async () => {
    const low = await skill("low", "shared", "from low");
    await skill("low", "only-low");
    const high = await skill("high", "shared", "from high");
    const r = recorder();
    const service = new SkillService({
      sources: [folderSource("low", "low"), folderSource("high", "high")],
      logger: r.logger,
      bus: r.bus,
    });
    const report = await service.discoverAndLoad();
    expect(report).toEqual({
      loaded: 2,
      failed: [],
      shadowed: [{ name: "shared", kept: high, dropped: low }],
      diagnostics: [expect.objectContaining({ code: "duplicate-name", path: low, severity: "warning" })],
    });
    expect(service.get("shared")).toMatchObject({ description: "from high", source: "high", location: high });
    expect(service.get("only-low")?.source).toBe("low");
    expect(r.events).toContainEqual({
      topic: "skill.shadowed",
      payload: { name: "shared", kept: high, dropped: low },
    });
    expect(r.warnings.map((w) => w.message)).toEqual([
      `Duplicate skill name: shared (${high} replaces ${low})`,
    ]);
    expect(service.diagnostics()).toContainEqual(
      expect.objectContaining({ code: "duplicate-name", path: low }),
    );
  });

  it("inside one source, later files win", async () => {
    await skill("one", "dup", "first", "a-folder");
    const later = await skill("one", "dup", "second", "b-folder");
    const service = new SkillService({ sources: [folderSource("one", "one")] });
    const report = await service.discoverAndLoad();
    expect(service.get("dup")?.location).toBe(later);
    expect(report.shadowed).toHaveLength(1);
  });

  it("picks the same winner on every run, whatever the I/O timing", async () => {
    for (let i = 0; i < 8; i++) await skill("low", `dup-${i}`, "low", `low-${i}`);
    for (let i = 0; i < 8; i++) await skill("high", `dup-${i}`, "high", `high-${i}`);
    for (let run = 0; run < 50; run++) {
      // The higher-precedence source answers first half of the time.
      const slowLow = run % 2 === 0;
      const service = new SkillService({
        sources: [folderSource("low", "low", slowLow ? 5 : 0), folderSource("high", "high", slowLow ? 0 : 5)],
      });
      await service.discoverAndLoad();
      expect(service.all().map((s) => s.description)).toEqual(Array(8).fill("high"));
    }
  });

  it("loads a file reached through a symlink and its target once, silently", async () => {
    const target = await skill("real", "linked");
    await mkdir(join(root, "links"), { recursive: true });
    await symlink(join(root, "real", "linked"), join(root, "links", "linked"));
    const r = recorder();
    const service = new SkillService({
      sources: [
        folderSource("real", "real"),
        folderSource("links", "links"),
        folderSource("real-again", "real"),
      ],
      logger: r.logger,
      bus: r.bus,
    });
    const report = await service.discoverAndLoad();
    expect(report).toEqual({ loaded: 1, failed: [], shadowed: [], diagnostics: [] });
    expect(r.warnings).toEqual([]);
    expect(r.events).toEqual([]);
    // Reached last through the third source, so that position decides its precedence.
    expect(service.get("linked")).toMatchObject({ source: "real-again", location: target });
  });

  it("reports a broken file in failed and on the bus while every other skill loads", async () => {
    await skill("s", "good-one");
    await skill("s", "good-two");
    const broken = join(root, "s", "broken", "SKILL.md");
    await mkdir(dirname(broken), { recursive: true });
    await writeFile(broken, "# no frontmatter here\n");
    const r = recorder();
    const service = new SkillService({ sources: [folderSource("s", "s")], logger: r.logger, bus: r.bus });
    const report = await service.discoverAndLoad();
    expect(report.loaded).toBe(2);
    expect(report.failed).toHaveLength(1);
    expect(report.failed[0]?.path).toBe(broken);
    expect(report.failed[0]?.error.code).toBe("PARSE_ERROR");
    expect(r.events).toEqual([
      {
        topic: "session.error",
        payload: { type: "skill_parse_error", path: broken, error: report.failed[0]?.error.message },
      },
    ]);
    expect(service.all().map((s) => s.name)).toEqual(["good-one", "good-two"]);
    expect(service.diagnostics()).toContainEqual(
      expect.objectContaining({ code: "frontmatter-missing", path: broken }),
    );
  });

  it("require names the missing skill and the available ones", async () => {
    const service = new SkillService({ sources: [folderSource("s", "s")] });
    await service.discoverAndLoad();
    expect(() => service.require("x")).toThrow('Skill "x" not found. Available skills: none');
    await skill("s", "beta");
    await skill("s", "alpha");
    await service.discoverAndLoad();
    try {
      service.require("x");
      expect.unreachable();
    } catch (error) {
      expect(SkillError.isInstance(error)).toBe(true);
      expect((error as SkillError).code).toBe("NOT_FOUND");
      expect((error as SkillError).message).toBe('Skill "x" not found. Available skills: alpha, beta');
    }
    expect(service.require("alpha").name).toBe("alpha");
  });

  it("all() sorts by code unit, not by locale", async () => {
    for (const name of ["b-skill", "a-skill", "Z-skill", "a10", "a9", "é-skill"]) await skill("s", name);
    const service = new SkillService({ sources: [folderSource("s", "s")] });
    await service.discoverAndLoad();
    const sorted = ["Z-skill", "a-skill", "a10", "a9", "b-skill", "é-skill"];
    expect(service.all().map((s) => s.name)).toEqual(sorted);
    // Each call gives a list of its own: changing one changes no later answer.
    const first = service.all();
    first.reverse().pop();
    expect(service.all().map((s) => s.name)).toEqual(sorted);
    expect(service.all()).not.toBe(service.all());
  });

  it("all(agent) hides denied skills and keeps ask ones", async () => {
    for (const name of ["public", "internal-x", "risky"]) await skill("s", name);
    const policy: PermissionPolicy = {
      evaluate: (agent, permission, pattern) =>
        agent.name === "review" && permission === "skill" && pattern.startsWith("internal-")
          ? "deny"
          : pattern === "risky"
            ? "ask"
            : "allow",
    };
    const service = new SkillService({ sources: [folderSource("s", "s")], permission: policy });
    await service.discoverAndLoad();
    const review: AgentInfo = { name: "review" };
    expect(service.all(review).map((s) => s.name)).toEqual(["public", "risky"]);
    expect(service.all({ name: "build" }).map((s) => s.name)).toEqual(["internal-x", "public", "risky"]);
    expect(service.all().map((s) => s.name)).toEqual(["internal-x", "public", "risky"]);
  });

  it("dirs() lists every folder that held a loaded SKILL.md, shadowed ones too, sorted", async () => {
    const a = await skill("low", "one");
    const b = await skill("low", "two");
    const c = await skill("high", "one");
    const d = await skill("high", "three");
    const service = new SkillService({ sources: [folderSource("low", "low"), folderSource("high", "high")] });
    await service.discoverAndLoad();
    expect(service.dirs()).toEqual([a, b, c, d].map((p) => dirname(p)).sort());
    expect(service.all()).toHaveLength(3);
  });

  it("swaps the registry in whole: a reader polling during a reload sees 40 skills, old or new, every time", async () => {
    for (let i = 0; i < 40; i++) await skill("old", `old-${i}`);
    for (let i = 0; i < 40; i++) await skill("new", `new-${i}`, `About new-${i} ${"x".repeat(9_000)}`);
    let dir = "old";
    const source: SkillSource = { id: "s", scan: (ctx) => folderSource("s", dir).scan(ctx) };
    const service = new SkillService({ sources: [source] });
    await service.discoverAndLoad();
    const oldNames = service.all().map((s) => s.name);
    expect(oldNames).toHaveLength(40);
    dir = "new";
    const seen: string[] = [];
    let done = false;
    const reload = service.discoverAndLoad().finally(() => {
      done = true;
    });
    let polls = 0;
    while (!done) {
      const names = service.all().map((s) => s.name);
      expect(names).toHaveLength(40);
      const kind = names.every((n) => n.startsWith("old-"))
        ? "old"
        : names.every((n) => n.startsWith("new-"))
          ? "new"
          : "mix";
      seen.push(kind);
      expect(service.get("old-0") === undefined).toBe(service.get("old-39") === undefined);
      polls++;
      await new Promise((r) => setImmediate(r));
    }
    await reload;
    expect(polls).toBeGreaterThan(0);
    expect(seen).not.toContain("mix");
    expect(seen[0]).toBe("old");
    expect(
      service
        .all()
        .map((s) => s.name)
        .every((n) => n.startsWith("new-")),
    ).toBe(true);
    expect(service.all()).toHaveLength(40);
  });

  it("reports a source whose scan throws and still loads the others", async () => {
    await skill("ok", "fine");
    const failing: SkillSource = {
      id: "broken-source",
      scan: async () => {
        throw new Error("disk on fire");
      },
    };
    const r = recorder();
    const service = new SkillService({
      sources: [failing, folderSource("ok", "ok")],
      bus: r.bus,
      logger: r.logger,
    });
    const report = await service.discoverAndLoad();
    expect(report.loaded).toBe(1);
    expect(report.failed).toHaveLength(1);
    expect(report.failed[0]?.path).toBe("broken-source");
    expect(report.failed[0]?.error.message).toContain("disk on fire");
    expect(service.get("fine")).toBeDefined();
    expect(r.events[0]).toMatchObject({
      topic: "session.error",
      payload: { type: "skill_parse_error", path: "broken-source" },
    });
  });

  it("rejects with ABORTED on an aborted signal and keeps the previous registry", async () => {
    for (let i = 0; i < 40; i++) await skill("s", `kept-${i}`);
    let abortAfterScan: AbortController | undefined;
    const source: SkillSource = {
      id: "s",
      scan: async (ctx) => {
        const result = await folderSource("s", "s").scan(ctx);
        abortAfterScan?.abort();
        return result;
      },
    };
    const r = recorder();
    const service = new SkillService({ sources: [source], bus: r.bus });
    await service.discoverAndLoad();
    const before = service.all();
    expect(before).toHaveLength(40);
    await skill("s", "added-later");
    await rm(join(root, "s", "kept-0"), { recursive: true });

    const already = new AbortController();
    already.abort();
    await expect(service.discoverAndLoad({ signal: already.signal })).rejects.toMatchObject({
      code: "ABORTED",
    });
    expect(service.all()).toEqual(before);

    // Aborted while loading: the scan has found the new set, the registry must not take it.
    abortAfterScan = new AbortController();
    await expect(service.discoverAndLoad({ signal: abortAfterScan.signal })).rejects.toSatisfy(
      (e) => SkillError.isInstance(e) && e.code === "ABORTED",
    );
    expect(service.all()).toEqual(before);
    expect(service.get("added-later")).toBeUndefined();
    expect(r.events).toEqual([]);

    abortAfterScan = undefined;
    await service.discoverAndLoad();
    expect(service.get("added-later")).toBeDefined();
    expect(service.get("kept-0")).toBeUndefined();
  });

  it("an aborted signal wins over a source that never settles and ignores it", async () => {
    await skill("s", "kept");
    let hang = false;
    const stuck: SkillSource = {
      id: "stuck",
      scan: (ctx) => (hang ? new Promise(() => {}) : folderSource("s", "s").scan(ctx)),
    };
    const service = new SkillService({ sources: [stuck] });
    await service.discoverAndLoad();
    hang = true;
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const started = performance.now();
    await expect(service.discoverAndLoad({ signal: controller.signal })).rejects.toMatchObject({
      code: "ABORTED",
    });
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(service.all().map((s) => s.name)).toEqual(["kept"]);
  });

  it("reports a source that throws synchronously or returns a malformed scan, and loads the others", async () => {
    await skill("ok", "fine");
    const bad = (id: string, scan: () => unknown): SkillSource => ({ id, scan: scan as SkillSource["scan"] });
    const service = new SkillService({
      sources: [
        bad("sync-throw", () => {
          throw new TypeError("scan exploded");
        }),
        bad("undefined", async () => undefined),
        bad("empty", async () => ({})),
        bad("files-null", async () => ({ files: null })),
        bad("old-shape", async () => ({ files: ["/x/SKILL.md"], dirs: [] })),
        bad("bad-entry", async () => ({ entries: [{ path: "/x" }], dirs: [] })),
        folderSource("ok", "ok"),
      ],
    });
    const report = await service.discoverAndLoad();
    expect(service.all().map((s) => s.name)).toEqual(["fine"]);
    expect(report.failed.map((f) => f.path)).toEqual([
      "sync-throw",
      "undefined",
      "empty",
      "files-null",
      "old-shape",
      "bad-entry",
    ]);
    expect(report.failed[0]?.error.message).toContain("scan exploded");
    expect(report.failed[4]?.error.message).toContain("since contract 2");
    for (const f of report.failed) expect(SkillError.isInstance(f.error)).toBe(true);
  });

  it("lets the newest of two overlapping loads own the registry", async () => {
    await skill("a", "from-a");
    await skill("b", "from-b");
    let dir = "a";
    const source: SkillSource = {
      id: "s",
      scan: async (ctx) => {
        const mine = dir;
        if (mine === "a") await new Promise((r) => setTimeout(r, 50));
        return folderSource("s", mine).scan(ctx);
      },
    };
    const service = new SkillService({ sources: [source] });
    const slow = service.discoverAndLoad();
    dir = "b";
    const fast = service.discoverAndLoad();
    await Promise.all([slow, fast]);
    expect(service.all().map((s) => s.name)).toEqual(["from-b"]);
  });

  it("in strict mode refuses skills that break the spec", async () => {
    await skill("s", "good");
    await skill("s", "Bad_Name", "d", "bad");
    const strict = new SkillService({ sources: [folderSource("s", "s")], lenient: false });
    const report = await strict.discoverAndLoad();
    expect(strict.all().map((s) => s.name)).toEqual(["good"]);
    expect(report.failed[0]?.error).toMatchObject({ code: "INVALID_FIELD" });
    expect(report.failed[0]?.error.message).toContain("name-invalid-chars");
    const lenient = new SkillService({ sources: [folderSource("s", "s")] });
    await lenient.discoverAndLoad();
    expect(lenient.all()).toHaveLength(2);
  });

  it("load() throws a SkillError for a bad file and reports it", async () => {
    const r = recorder();
    const service = new SkillService({ bus: r.bus });
    const path = join(root, "missing", "SKILL.md");
    await expect(service.load(path)).rejects.toMatchObject({ code: "NOT_FOUND", path });
    expect(r.events).toEqual([
      {
        topic: "session.error",
        payload: { type: "skill_parse_error", path, error: `Skill file not found: ${path}` },
      },
    ]);
  });

  it("a throwing bus or logger never breaks a load", async () => {
    await skill("a", "dup");
    await skill("b", "dup");
    const service = new SkillService({
      sources: [folderSource("a", "a"), folderSource("b", "b")],
      bus: {
        publish: () => {
          throw new Error("bus down");
        },
      },
      logger: {
        warn: () => {
          throw new Error("logger down");
        },
      },
    });
    await expect(service.discoverAndLoad()).resolves.toMatchObject({ loaded: 1 });
  });
});

describe("SkillService content", () => {
  async function writeSkill(folder: string, text: string): Promise<string> {
    const path = join(root, folder, "SKILL.md");
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, text);
    return path;
  }

  it("holds metadata only: read() parses metadata and body from the bytes on disk now", async () => {
    const path = await writeSkill(
      "s/lazy",
      `---\nname: lazy\ndescription: first\n---\nfirst body\n${"x".repeat(20_000)}\n`,
    );
    const service = new SkillService({ sources: [folderSource("s", "s")] });
    await service.discoverAndLoad();
    const meta = service.require("lazy");
    expect(Object.keys(meta).sort()).toEqual(
      [
        "description",
        "frontmatter",
        "location",
        "modelInvocable",
        "name",
        "origin",
        "source",
        "summary",
        "userInvocable",
      ].sort(),
    );
    expect(Object.isFrozen(meta)).toBe(true);
    await writeFile(path, "---\nname: lazy\ndescription: second\n---\nsecond body\n");
    const read = await service.read("lazy");
    expect(read.content).toBe("second body\n");
    expect(read.description).toBe("second");
    expect(read.frontmatter.description).toBe("second");
    // The registry keeps what it loaded until the next load.
    expect(service.require("lazy").description).toBe("first");
  });

  it("read() of a skill renamed on disk rejects NOT_FOUND 'changed on disk'", async () => {
    const path = await writeSkill("s/renamed", "---\nname: renamed\ndescription: d\n---\nbody\n");
    const service = new SkillService({ sources: [folderSource("s", "s")] });
    await service.discoverAndLoad();
    await writeFile(path, "---\nname: other-name\ndescription: d\n---\nnew body\n");
    const error = await service.read("renamed").catch((e: unknown) => e);
    expect(SkillError.isInstance(error) && error.code).toBe("NOT_FOUND");
    expect((error as Error).message).toMatch(/^Skill "renamed" changed on disk since it was loaded: /);
    expect((error as Error).message).toContain('"other-name"');
    await writeFile(path, "no frontmatter any more");
    await expect(service.read("renamed")).rejects.toMatchObject({
      code: "NOT_FOUND",
      message: expect.stringContaining("changed on disk since it was loaded: Failed to parse frontmatter"),
    });
  });

  it("metadata survives its file: spread, JSON and structuredClone touch no disk", async () => {
    const path = await writeSkill("s/gone", "---\nname: gone\ndescription: d\n---\nbody\n");
    const service = new SkillService({ sources: [folderSource("s", "s")] });
    await service.discoverAndLoad();
    const meta = service.require("gone");
    await rm(path);
    expect({ ...meta }.name).toBe("gone");
    expect(JSON.parse(JSON.stringify(meta))).toMatchObject({
      name: "gone",
      description: "d",
      location: path,
    });
    expect(structuredClone(meta)).toEqual({ ...meta });
    await expect(service.read("gone")).rejects.toMatchObject({
      code: "NOT_FOUND",
      message: expect.stringContaining("changed on disk since it was loaded: Skill file not found"),
    });
  });

  it("parses frontmatter longer than the listing's head read, and every line ending", async () => {
    const long = `---\nname: long\ndescription: d\nmetadata:\n${Array.from({ length: 600 }, (_, i) => `  key${i}: value ${i}`).join("\n")}\n---\nlong body\n`;
    await writeSkill("s/long", `${long}${"y".repeat(10_000)}`);
    const crlf = `---\r\nname: crlf\r\ndescription: windows\r\n---\r\ncrlf body\r\n${"z\r\n".repeat(5_000)}`;
    await writeSkill("s/crlf", crlf);
    const cr = `\uFEFF---\rname: cr\rdescription: classic mac\r---\rcr body\r${"w\r".repeat(5_000)}`;
    await writeSkill("s/cr", cr);
    const service = new SkillService({ sources: [folderSource("s", "s")] });
    const report = await service.discoverAndLoad();
    expect(report.failed).toEqual([]);
    expect(Object.keys(service.require("long").frontmatter.metadata as object)).toHaveLength(600);
    expect((await service.read("long")).content.startsWith("long body\n")).toBe(true);
    expect(service.require("crlf").description).toBe("windows");
    expect((await service.read("crlf")).content.startsWith("crlf body\nz\n")).toBe(true);
    expect(service.require("cr").description).toBe("classic mac");
    expect((await service.read("cr")).content.startsWith("cr body\nw\n")).toBe(true);
  });

  it("reports a FIFO named SKILL.md without hanging", { tags: ["slow"] }, async () => {
    const { execFileSync } = await import("node:child_process");
    await mkdir(join(root, "s", "fifo"), { recursive: true });
    execFileSync("mkfifo", [join(root, "s", "fifo", "SKILL.md")]);
    await skill("s", "normal");
    const service = new SkillService({ sources: [folderSource("s", "s")] });
    const report = await service.discoverAndLoad();
    expect(report.loaded).toBe(1);
    expect(report.failed[0]?.error.code).toBe("READ_ERROR");
    expect(report.failed[0]?.error.message).toContain("found a FIFO");
  });
});
