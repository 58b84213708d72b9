import { mkdir, mkdtemp, readdir, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SkillEvents } from "../spec/logging.js";
import type { SkillSource } from "../spec/skill-source.js";
import { memorySource } from "./memory-source.js";
import { SkillService } from "./service.js";

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "skill-core-update-"));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function write(
  dir: string,
  folder: string,
  name: string,
  description = `About ${name}`,
): Promise<string> {
  const path = join(root, dir, folder, "SKILL.md");
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, `---\nname: ${name}\ndescription: ${description}\n---\n# ${name}\n`);
  return path;
}

/** Every SKILL.md one level below `<root>/<dir>`, sorted, counting its scans. */
function folderSource(dir: string): SkillSource & { scans: number } {
  const source = {
    id: dir,
    scans: 0,
    async scan() {
      source.scans++;
      const names = await readdir(join(root, dir)).catch(() => [] as string[]);
      const entries = names
        .map((n) => ({ location: join(root, dir, n, "SKILL.md") }))
        .sort((a, b) => (a.location < b.location ? -1 : 1));
      return { entries, dirs: [join(root, dir)] };
    },
  };
  return source;
}

function changes() {
  const events: SkillEvents["skill.changed"][] = [];
  return {
    events,
    bus: {
      publish(topic: string, payload: unknown) {
        if (topic === "skill.changed") events.push(payload as SkillEvents["skill.changed"]);
      },
    },
  };
}

describe("SkillService.update", () => {
  it("re-reads only the given files, without scanning, and reports added, changed and removed names", async () => {
    const keep = await write("s", "keep", "keep");
    const edit = await write("s", "edit", "edit", "before");
    const gone = await write("s", "gone", "gone");
    const source = folderSource("s");
    const c = changes();
    const service = new SkillService({ sources: [source], bus: c.bus });
    await service.discoverAndLoad();
    const keepMeta = service.get("keep");

    await write("s", "edit", "edit", "after");
    await rm(dirname(gone), { recursive: true });
    const fresh = await write("s", "fresh", "fresh");
    const report = await service.update([edit, gone, fresh]);

    expect(source.scans).toBe(1);
    expect(c.events).toEqual([{ added: ["fresh"], changed: ["edit"], removed: ["gone"] }]);
    expect(service.all().map((s) => s.name)).toEqual(["edit", "fresh", "keep"]);
    expect(service.get("edit")?.description).toBe("after");
    expect(service.get("keep")).toBe(keepMeta);
    expect(service.get("fresh")?.source).toBe("s");
    expect(report.loaded).toBe(3);
    expect(keep).toBeDefined();
  });

  it("lets a shadowed skill back when the winner is removed, and reports the name as changed", async () => {
    const low = await write("low", "shared", "shared", "from low");
    const high = await write("high", "shared", "shared", "from high");
    const c = changes();
    const service = new SkillService({ sources: [folderSource("low"), folderSource("high")], bus: c.bus });
    const first = await service.discoverAndLoad();
    expect(first.shadowed).toEqual([{ name: "shared", kept: high, dropped: low }]);

    await rm(dirname(high), { recursive: true });
    const report = await service.update([high]);
    expect(service.get("shared")?.location).toBe(low);
    expect(service.get("shared")?.description).toBe("from low");
    expect(report.shadowed).toEqual([]);
    expect(c.events).toEqual([{ added: [], changed: ["shared"], removed: [] }]);

    // And back again: the new file belongs to the higher source and wins.
    await write("high", "shared", "shared", "from high again");
    const again = await service.update([high]);
    expect(service.get("shared")?.description).toBe("from high again");
    expect(again.shadowed).toEqual([{ name: "shared", kept: high, dropped: low }]);
    expect(c.events.at(-1)).toEqual({ added: [], changed: ["shared"], removed: [] });
  });

  it("gives a new file to the source whose folder holds it (the deepest; the later on a tie), ignores others", async () => {
    const outer: SkillSource = {
      id: "outer",
      scan: async () => ({ entries: [], dirs: [join(root, "tree")] }),
    };
    const inner: SkillSource = {
      id: "inner",
      scan: async () => ({ entries: [], dirs: [join(root, "tree", "deep")] }),
    };
    const service = new SkillService({ sources: [inner, outer] });
    await service.discoverAndLoad();
    const deep = await write("tree/deep", "a", "a");
    const shallow = await write("tree", "b", "b");
    const stray = await write("elsewhere", "c", "c");
    await service.update([deep, shallow, stray]);
    expect(service.get("a")?.source).toBe("inner");
    expect(service.get("b")?.source).toBe("outer");
    expect(service.get("c")).toBeUndefined();
  });

  it("reports a file that stopped parsing in failed and on the bus, and recovers when it is fixed", async () => {
    const path = await write("s", "flaky", "flaky");
    const events: { topic: string; payload: unknown }[] = [];
    const service = new SkillService({
      sources: [folderSource("s")],
      bus: { publish: (topic, payload) => events.push({ topic, payload }) },
    });
    await service.discoverAndLoad();
    await writeFile(path, "no frontmatter");
    const broken = await service.update([path]);
    expect(broken.failed.map((f) => f.path)).toEqual([path]);
    expect(service.get("flaky")).toBeUndefined();
    expect(events).toContainEqual({
      topic: "skill.changed",
      payload: { added: [], changed: [], removed: ["flaky"] },
    });
    expect(events.some((e) => e.topic === "session.error")).toBe(true);
    await write("s", "flaky", "flaky");
    const fixed = await service.update([path]);
    expect(fixed.failed).toEqual([]);
    expect(service.get("flaky")).toBeDefined();
  });

  it("re-reads an entry with its own read(), and drops it when it is gone", async () => {
    let text: string | undefined = "---\nname: mem\ndescription: one\n---\n";
    const source: SkillSource = {
      id: "mem",
      scan: async () => ({
        entries: [
          {
            location: "mem:skill",
            read: async () => {
              if (text === undefined) throw Object.assign(new Error("gone"), { code: "ENOENT" });
              return text;
            },
          },
        ],
        dirs: [],
      }),
    };
    const service = new SkillService({ sources: [source] });
    await service.discoverAndLoad();
    text = "---\nname: mem\ndescription: two\n---\n";
    await service.update(["mem:skill"]);
    expect(service.get("mem")?.description).toBe("two");
  });
});

describe("update during a full load", () => {
  it("a change reported while discoverAndLoad runs is not lost when that load read the file before", async () => {
    let description = "old";
    let gate: (() => void) | undefined;
    let calls = 0;
    const source: SkillSource = {
      id: "mem",
      scan: async () => ({
        entries: [
          {
            location: "mem://x/slow/SKILL.md",
            read: async () => {
              calls++;
              const text = `---\nname: slow\ndescription: ${description}\n---\n`;
              if (calls === 2) await new Promise<void>((resolve) => (gate = resolve)); // the full load's read
              return text;
            },
          },
        ],
        dirs: [],
      }),
    };
    const service = new SkillService({ sources: [source] });
    await service.discoverAndLoad();
    const load = service.discoverAndLoad();
    while (!gate) await new Promise((r) => setImmediate(r));
    description = "new";
    await service.update(["mem://x/slow/SKILL.md"]);
    gate();
    await load;
    expect(service.get("slow")?.description).toBe("new");
  });
});

describe("SkillService.load", () => {
  it("loads a file reached through a symlink once, silently, as discoverAndLoad does", async () => {
    const real = await write("s", "real", "linked");
    await mkdir(join(root, "links"), { recursive: true });
    await symlink(dirname(real), join(root, "links", "alias"));
    const warnings: string[] = [];
    const service = new SkillService({ logger: { warn: (m) => warnings.push(m) } });
    await service.load(real);
    await service.load(join(root, "links", "alias", "SKILL.md"));
    expect(warnings).toEqual([]);
    expect(service.all()).toHaveLength(1);
    expect(service.get("linked")?.location).toBe(join(root, "links", "alias", "SKILL.md"));
  });
});

describe("SkillService.update against a full load", () => {
  /** What a load leaves, comparable between two services. */
  function state(service: SkillService, report: Awaited<ReturnType<SkillService["update"]>>) {
    return {
      skills: service.all().map((s) => [s.name, s.description, s.location, s.source]),
      diagnostics: report.diagnostics,
      shadowed: report.shadowed,
      failed: report.failed.map((f) => [f.path, f.error.code]),
      loaded: report.loaded,
      dirs: service.dirs(),
    };
  }

  it("gives what a fresh load gives, whether an edit keeps the name (the winner alone is replaced) or not", async () => {
    const file = async (dir: string, folder: string, text: string) => {
      const path = join(root, dir, folder, "SKILL.md");
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, text);
      return path;
    };
    const skill = (name: string, description: string, extra = "") =>
      `---\nname: ${name}\ndescription: ${description}\n${extra}---\n# ${name}\n`;
    const tagged = await file("a", "tagged", skill("tagged", "Has tags", "tags: [x]\n"));
    const plain = await file("a", "plain", skill("plain", "Plain"));
    const low = await file("a", "dup", skill("dup", "Shadowed"));
    const high = await file("b", "dup", skill("dup", "Wins"));
    await file("a", "broken", "---\nname: broken\n---\nno description\n");
    const sources = [folderSource("a"), folderSource("b")];
    const c = changes();
    const service = new SkillService({ sources, bus: c.bus });
    await service.discoverAndLoad();
    const fresh = async () => {
      const other = new SkillService({ sources });
      return state(other, await other.discoverAndLoad());
    };

    const start = await fresh();
    expect([start.failed.length, start.shadowed.length, start.diagnostics.length > 2]).toEqual([1, 1, true]);

    const steps: [string, string, string][] = [
      [tagged, skill("tagged", "Still tagged", "tags: [y]\n"), "tagged"], // same name, same findings
      [plain, skill("plain", "Now tagged", "tags: [z]\n"), "plain"], // a new finding
      [high, skill("dup", "Still wins"), "dup"], // the winner of a shadowed pair
      [low, skill("dup", "Still shadowed"), ""], // the shadowed one: no winner changes
      [tagged, skill("renamed", "Renamed"), ""], // another name
    ];
    for (const [path, text, changed] of steps) {
      c.events.length = 0;
      await writeFile(path, text);
      const report = await service.update([path]);
      expect(state(service, report)).toEqual(await fresh());
      if (changed) expect(c.events).toEqual([{ added: [], changed: [changed], removed: [] }]);
    }
    expect(service.get("plain")?.description).toBe("Now tagged");
    expect(service.diagnostics().filter((d) => d.code === "unknown-field:tags")).toHaveLength(1);
  });
});

describe("memorySource", () => {
  it("serves built-in skills with no file on disk: load, list, read and files", async () => {
    const service = new SkillService({
      sources: [
        memorySource("builtin", [
          {
            location: "builtin://tools/commit/SKILL.md",
            text: "---\nname: commit\ndescription: Write commit messages\n---\n# Commit\nUse the imperative.\n",
            files: ["templates/message.txt", "../escape", "/abs", ".hidden/x", "SKILL.md"],
          },
        ]),
      ],
    });
    const report = await service.discoverAndLoad();
    expect(report.failed).toEqual([]);
    expect(service.all().map((s) => [s.name, s.location, s.source])).toEqual([
      ["commit", "builtin://tools/commit/SKILL.md", "builtin"],
    ]);
    expect((await service.read("commit")).content).toBe("# Commit\nUse the imperative.\n");
    expect(await service.files("commit")).toEqual(["templates/message.txt"]);
    expect(service.dirs()).toEqual([]);
  });
});
