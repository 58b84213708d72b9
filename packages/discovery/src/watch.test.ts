// @module-tag slow: real watchers, waiting out their debounce on real timers.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { chmod, mkdir, readdir, rename, rm, symlink, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { SkillService } from "@skill/core";
import { memoryLogger, removeTempDirs, skillText, tempWorld, writeSkill } from "@skill/test-utils";
import { afterEach, describe, expect, it } from "vitest";
import { installBuilt, NOBODY } from "../test/dist-fixture.js";
import type { SkillChange } from "./change-batch.js";
import { agentProfile } from "./sources.js";
import { watchSkillFiles, watchSkills } from "./watch.js";
import type { SkillWatcher } from "./watch-plans.js";

const open: SkillWatcher[] = [];

afterEach(async () => {
  await Promise.all(open.splice(0).map((w) => w.close()));
  await removeTempDirs();
});

/** Polls until `check` passes; generous timeout for a loaded 2-core machine. */
async function until(check: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

function start(options: Parameters<typeof watchSkillFiles>[0]) {
  const batches: SkillChange[][] = [];
  const watcher = watchSkillFiles({ env: {}, debounceMs: 50, ...options }, (changes) =>
    batches.push([...changes]),
  );
  open.push(watcher);
  const events = () => batches.flat();
  const saw = (type: SkillChange["type"], path: string) =>
    events().some((e) => e.type === type && e.path === path);
  return { watcher, batches, events, saw };
}

describe("watchSkillFiles", () => {
  it("reports skills written, edited, renamed and deleted", { timeout: 90_000 }, async () => {
    const { home, project } = await tempWorld();
    const skills = join(project, ".claude", "skills");
    await writeSkill(join(skills, "existing"));
    const w = start({ cwd: project, home });
    await w.watcher.ready;

    const fresh = await writeSkill(join(skills, "fresh"));
    await until(() => w.saw("added", fresh), "the new skill");

    await writeFile(fresh, skillText("fresh", "Edited description."));
    await until(() => w.saw("changed", fresh), "the edit");

    const renamed = join(skills, "renamed", "SKILL.md");
    await rename(join(skills, "fresh"), join(skills, "renamed"));
    await until(() => w.saw("removed", fresh) && w.saw("added", renamed), "the rename");

    await rm(join(skills, "renamed"), { recursive: true });
    await until(() => w.saw("removed", renamed), "the deletion");

    // Not skills: other files, and SKILL.md under an ignored folder.
    await writeFile(join(skills, "existing", "notes.md"), "notes");
    await writeSkill(join(skills, "node_modules", "dep"));
    const sentinel = await writeSkill(join(skills, "sentinel"));
    await until(() => w.saw("added", sentinel), "the sentinel");
    expect(w.events().filter((e) => e.path.includes("node_modules") || e.path.endsWith("notes.md"))).toEqual(
      [],
    );
    expect(w.saw("added", join(skills, "existing", "SKILL.md"))).toBe(false);
  });

  it("notices roots that appear later, like a new .agents/skills", { timeout: 90_000 }, async () => {
    const { home, project } = await tempWorld();
    const cwd = join(project, "packages", "app");
    await mkdir(cwd, { recursive: true });
    const w = start({ cwd, home, paths: ["../../configured/skills"] });
    await w.watcher.ready;

    const projectSkill = await writeSkill(join(project, ".agents", "skills", "new-root"));
    await until(() => w.saw("added", projectSkill), "a skill in a new project .agents/skills");

    const nearSkill = await writeSkill(join(cwd, ".claude", "skills", "nested", "deep"));
    await until(() => w.saw("added", nearSkill), "a skill in a new .claude/skills at cwd");

    const globalSkill = await writeSkill(join(home, ".agents", "skills", "global"));
    await until(() => w.saw("added", globalSkill), "a skill in a new ~/.agents/skills");

    const configured = await writeSkill(join(project, "configured", "skills", "cfg"));
    await until(() => w.saw("added", configured), "a skill in a configured path created later");

    // Folders beside the roots are not skill roots.
    await writeSkill(join(project, "src", "not-a-root"));
    const sentinel = await writeSkill(join(cwd, ".agents", "skills", "sentinel"));
    await until(() => w.saw("added", sentinel), "the sentinel");
    expect(w.events().some((e) => e.path.includes(`${join(project, "src")}`))).toBe(false);
  });

  it("follows symlinked skill folders: edits at the target, new links, removed links", {
    timeout: 90_000,
  }, async () => {
    const { base, home, project } = await tempWorld();
    const skills = join(project, ".claude", "skills");
    await mkdir(skills, { recursive: true });
    const target = await writeSkill(join(base, "dotfiles", "pdf"));
    await symlink(join(base, "dotfiles", "pdf"), join(skills, "pdf"));
    const w = start({ cwd: project, home });
    await w.watcher.ready;
    const viaLink = join(skills, "pdf", "SKILL.md");

    await writeFile(target, skillText("pdf", "Edited at the target."));
    await until(() => w.saw("changed", viaLink), "the edit through the link");

    await writeSkill(join(base, "dotfiles", "csv"));
    await symlink(join(base, "dotfiles", "csv"), join(skills, "csv"));
    await until(() => w.saw("added", join(skills, "csv", "SKILL.md")), "the new link");

    await unlink(join(skills, "pdf"));
    await until(() => w.saw("removed", viaLink), "the removed link");
  });

  it("batches changes made together into one sorted call", { timeout: 90_000 }, async () => {
    const { home, project } = await tempWorld();
    const dirs = ["c", "a", "b"].map((n) => join(project, ".agents", "skills", n));
    for (const dir of dirs) await mkdir(dir, { recursive: true });
    const w = start({ cwd: project, home, debounceMs: 1_000 });
    await w.watcher.ready;
    // Written in one tick into folders already watched: the events arrive well within 1 s.
    const files = dirs.map((dir) => join(dir, "SKILL.md"));
    for (const [i, file] of files.entries()) writeFileSync(file, skillText(`s${i}`));
    await until(() => w.events().length >= 3, "three events");
    expect(w.batches).toEqual([[...files].sort().map((path) => ({ type: "added", path }))]);
  });

  it("reports during a steady stream of writes instead of waiting for quiet", {
    timeout: 90_000,
  }, async () => {
    const { home, project } = await tempWorld();
    const file = await writeSkill(join(project, ".agents", "skills", "busy"));
    const w = start({ cwd: project, home, debounceMs: 200 }); // reports at least every 2 s
    await w.watcher.ready;
    const end = Date.now() + 20_000;
    for (let i = 0; w.batches.length === 0 && Date.now() < end; i++) {
      await writeFile(file, skillText("busy", `Version ${i}.`));
      await new Promise((resolve) => setTimeout(resolve, 40));
    }
    expect(w.batches[0]).toEqual([{ type: "changed", path: file }]);
  });

  it("keeps reporting after a listener throws, with a logger warning", { timeout: 90_000 }, async () => {
    const { home, project } = await tempWorld();
    await mkdir(join(project, ".agents", "skills"), { recursive: true });
    const logger = memoryLogger();
    const seen: SkillChange[] = [];
    const watcher = watchSkillFiles({ cwd: project, home, env: {}, logger, debounceMs: 50 }, (changes) => {
      seen.push(...changes);
      if (seen.length === 1) throw new Error("listener bug");
    });
    open.push(watcher);
    await watcher.ready;
    await writeSkill(join(project, ".agents", "skills", "one"));
    await until(() => seen.length === 1, "the first event");
    const two = await writeSkill(join(project, ".agents", "skills", "two"));
    await until(() => seen.some((c) => c.path === two), "the second event");
    expect(logger.warnings.map((w) => w.message)).toContain("Skill watch listener threw: listener bug");
  });

  it("stops reporting once closed", { timeout: 90_000 }, async () => {
    const { home, project } = await tempWorld();
    await mkdir(join(project, ".agents", "skills"), { recursive: true });
    const first = start({ cwd: project, home });
    await first.watcher.ready;
    await first.watcher.close();
    // A second watcher proves the write was observable: when it has seen the event, the closed
    // one would have too.
    const second = start({ cwd: project, home });
    await second.watcher.ready;
    const file = await writeSkill(join(project, ".agents", "skills", "after-close"));
    await until(() => second.saw("added", file), "the second watcher's event");
    expect(first.batches).toEqual([]);
  });

  it("releases every handle on close: the process exits by itself", {
    tags: ["slow"],
    timeout: 90_000,
  }, async () => {
    const { home, project } = await tempWorld();
    await writeSkill(join(project, ".claude", "skills", "pdf"));
    const dist = new URL("../dist/index.js", import.meta.url).href;
    expect(existsSync(new URL(dist)), "run `pnpm --filter @skill/discovery build` first").toBe(true);
    const script = `
      const { watchSkillFiles } = await import(${JSON.stringify(dist)});
      const watcher = watchSkillFiles({ cwd: ${JSON.stringify(project)}, home: ${JSON.stringify(home)}, env: {} }, () => {});
      await watcher.ready;
      await watcher.close();
      console.log("closed");`;
    const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
      encoding: "utf8",
      timeout: 60_000,
    });
    expect({
      status: child.status,
      signal: child.signal,
      stdout: child.stdout.trim(),
      stderr: child.stderr,
    }).toEqual({
      status: 0,
      signal: null,
      stdout: "closed",
      stderr: "",
    });
  });
});

describe("watchSkills", () => {
  it("keeps a service current through update: only changed files are re-read", {
    timeout: 90_000,
  }, async () => {
    const { SkillService } = await import("@skill/core");
    const { discoverySources } = await import("./sources.js");
    const { home, project } = await tempWorld();
    const low = await writeSkill(
      join(home, ".claude", "skills", "shared"),
      "shared",
      skillText("shared", "From home."),
    );
    await writeSkill(join(project, ".agents", "skills", "stays"));
    const sources = discoverySources({ cwd: project, home, env: {} });
    const events: unknown[] = [];
    const service = new SkillService({
      sources,
      bus: { publish: (topic, payload) => topic === "skill.changed" && events.push(payload) },
    });
    await service.discoverAndLoad();
    const scans = sources.map((s) => s.scan.bind(s));
    let rescans = 0;
    for (const [i, source] of sources.entries()) {
      (source as { scan: unknown }).scan = (ctx: Parameters<typeof source.scan>[0]) => {
        rescans++;
        return scans[i]?.(ctx);
      };
    }
    const applied: string[][] = [];
    const watcher = watchSkills(service, sources, {
      debounceMs: 50,
      onChange: (changes) => applied.push(changes.map((c) => `${c.type} ${c.path}`)),
    });
    open.push(watcher);
    await watcher.ready;

    const high = await writeSkill(
      join(project, ".agents", "skills", "shared"),
      "shared",
      skillText("shared", "From project."),
    );
    await until(() => service.get("shared")?.location === high, "the project skill to win");
    expect(events).toContainEqual({ added: [], changed: ["shared"], removed: [] });

    await rm(join(project, ".agents", "skills", "shared"), { recursive: true });
    await until(() => service.get("shared")?.location === low, "the home skill to come back");
    expect(service.get("shared")?.description).toBe("From home.");
    expect(service.get("stays")).toBeDefined();
    expect(rescans).toBe(0);
    expect(applied.flat()).toContain(`added ${high}`);
  });
});

describe("watchSkills and a throwing onChange", () => {
  it("applies every batch and says that onChange threw (the update itself went through)", {
    timeout: 90_000,
  }, async () => {
    const { home, project } = await tempWorld();
    const skills = join(project, ".agents", "skills");
    await mkdir(skills, { recursive: true });
    const sources = agentProfile({ cwd: project, home, env: {} }).sources;
    const service = new SkillService({ sources });
    await service.discoverAndLoad();
    const logger = memoryLogger();
    let calls = 0;
    const watcher = watchSkills(service, sources, {
      debounceMs: 50,
      logger,
      onChange: () => {
        calls++;
        throw new Error("harness bug");
      },
    });
    open.push(watcher);
    await watcher.ready;
    await writeSkill(join(skills, "one"));
    await until(() => calls === 1, "the first batch");
    await writeSkill(join(skills, "two"));
    await until(() => calls === 2, "the second batch");
    expect(service.all().map((s) => s.name)).toEqual(["one", "two"]);
    expect(logger.warnings.map((w) => w.message)).toEqual([
      "Skill watch onChange threw: harness bug",
      "Skill watch onChange threw: harness bug",
    ]);
  });
});

describe("watchSkillFiles on a configured SKILL.md", () => {
  it("reports edits of a configured path that names a SKILL.md file", { timeout: 90_000 }, async () => {
    const { base, home, project } = await tempWorld();
    const file = await writeSkill(join(base, "single"));
    const w = start({ cwd: project, home, paths: [file] });
    await w.watcher.ready;
    await writeFile(file, skillText("single", "Edited."));
    await until(() => w.saw("changed", file), "the edit");
  });
});

describe("watchSkillFiles on hostile layouts", () => {
  it("becomes ready quickly with two `..` symlink loops in a root, and still reports changes", {
    timeout: 90_000,
  }, async () => {
    const { home, project } = await tempWorld();
    const skills = join(project, ".agents", "skills");
    await writeSkill(join(skills, "kept"));
    await symlink("..", join(skills, "up"));
    await symlink("../..", join(skills, "kept", "upper"));
    const started = Date.now();
    const w = start({ cwd: project, home });
    await w.watcher.ready;
    // Following the links as folders never ends: 2.4 GB after 30 s, never ready.
    expect(Date.now() - started).toBeLessThan(10_000);
    const fresh = await writeSkill(join(skills, "fresh"));
    await until(() => w.saw("added", fresh), "the new skill");
    await writeFile(join(skills, "kept", "SKILL.md"), skillText("kept", "Edited."));
    await until(() => w.saw("changed", join(skills, "kept", "SKILL.md")), "the edit");
    expect(w.events().every((e) => !e.path.includes(`${join(skills, "up")}/`))).toBe(true);
  });

  it("becomes ready quickly with a symlink to /usr in a root", {
    tags: ["slow"],
    timeout: 120_000,
  }, async (ctx) => {
    if (!existsSync("/usr")) {
      ctx.skip();
      return;
    }
    const { home, project } = await tempWorld();
    const skills = join(project, ".agents", "skills");
    await mkdir(skills, { recursive: true });
    await symlink("/usr", join(skills, "usr"));
    const started = Date.now();
    const w = start({ cwd: project, home });
    await w.watcher.ready;
    // /usr holds ~15,000 folders here: watched in well under a second; before, not ready after 60 s.
    expect(Date.now() - started).toBeLessThan(15_000);
    const fresh = await writeSkill(join(skills, "fresh"));
    await until(() => w.saw("added", fresh), "the new skill");
  });

  it("keeps to the preset's depth: codex does not watch below depth 6 or in dot-folders", {
    timeout: 90_000,
  }, async () => {
    const { home, project } = await tempWorld();
    const skills = join(project, ".agents", "skills");
    const deep = join(skills, "a", "b", "c", "d", "e", "f");
    await mkdir(deep, { recursive: true });
    await mkdir(join(skills, ".curated"), { recursive: true });
    const w = start({ cwd: project, home, preset: "codex", systemDir: join(project, "no-etc") });
    await w.watcher.ready;
    await writeSkill(join(deep, "too-deep"));
    await writeSkill(join(skills, ".curated", "hidden"));
    const sentinel = await writeSkill(join(skills, "a", "b", "c", "d", "e", "sentinel"));
    await until(() => w.saw("added", sentinel), "the sentinel at depth 6");
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(w.events().map((e) => e.path)).toEqual([sentinel]);
  });
});

describe("watchSkills with an agent preset", () => {
  it("keeps a service current under the preset's rules", { timeout: 90_000 }, async () => {
    const { home, project } = await tempWorld();
    const skills = join(project, ".agents", "skills");
    await writeSkill(join(skills, "first"));
    const { sources, rules } = agentProfile({
      cwd: project,
      home,
      env: {},
      preset: "codex",
      systemDir: join(project, "no-etc"),
    });
    const service = new SkillService({ sources, ...rules });
    await service.discoverAndLoad();
    const applied: SkillChange[] = [];
    const watcher = watchSkills(service, sources, {
      debounceMs: 50,
      onChange: (changes) => applied.push(...changes),
    });
    open.push(watcher);
    await watcher.ready;
    await writeSkill(join(skills, ".hidden", "dotted"));
    await writeSkill(
      join(skills, "second"),
      undefined,
      '---\ndescription: "No name: Codex names it after its folder."\n---\n',
    );
    await until(() => service.get("second") !== undefined, "the nameless skill, named after its folder");
    expect(applied.map((c) => c.path)).toEqual([join(skills, "second", "SKILL.md")]);
    expect(service.all().map((s) => s.name)).toEqual(["first", "second"]);
  });
});

/** One line the host process below prints. */
interface HostLine {
  readonly ready?: readonly string[];
  readonly warn?: string;
  readonly changed?: { readonly added: string[]; readonly changed: string[]; readonly removed: string[] };
  readonly all?: readonly string[];
  readonly stopped?: boolean;
}

/**
 * What an agent harness does, in a process of its own: load with discovery sources, watch with
 * watchSkills, print every `skill.changed`, every logger warning and the names after each
 * batch, one JSON line each. "stop" on stdin closes the watcher; the process then ends by itself.
 */
const HOST_SCRIPT = `
const [discoveryUrl, coreUrl, cwd, home] = process.argv.slice(1);
const { discoverySources, watchSkills } = await import(discoveryUrl);
const { SkillService } = await import(coreUrl);
const say = (value) => process.stdout.write(JSON.stringify(value) + "\\n");
const logger = { warn: (message) => say({ warn: message }) };
const sources = discoverySources({ cwd, home, env: {}, logger });
const service = new SkillService({
  sources,
  logger,
  bus: { publish: (topic, payload) => topic === "skill.changed" && say({ changed: payload }) },
});
await service.discoverAndLoad();
const watcher = watchSkills(service, sources, {
  debounceMs: 50,
  logger,
  onChange: () => say({ all: service.all().map((s) => s.name) }),
});
await watcher.ready;
say({ ready: service.all().map((s) => s.name) });
process.stdin.setEncoding("utf8");
process.stdin.on("data", async (text) => {
  if (!text.includes("stop")) return;
  await watcher.close();
  process.stdin.destroy();
  say({ stopped: true });
});
`;

const hosts: ChildProcess[] = [];

afterEach(() => {
  for (const child of hosts.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill();
});

/** Starts the host on the built packages (copied under `base`), as `uid` when given. */
async function startHost(base: string, cwd: string, home: string, uid?: number) {
  const { discovery, core } = await installBuilt(base);
  const child = spawn(
    process.execPath,
    ["--input-type=module", "-e", HOST_SCRIPT, discovery, core, cwd, home],
    {
      cwd: base,
      env: {},
      stdio: ["pipe", "pipe", "pipe"],
      ...(uid === undefined ? {} : { uid, gid: uid }),
    },
  );
  hosts.push(child);
  const lines: HostLine[] = [];
  let stdout = "";
  let stderr = "";
  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  child.stdout.setEncoding("utf8").on("data", (text: string) => {
    stdout += text;
    const parts = stdout.split("\n");
    stdout = parts.pop() ?? "";
    for (const part of parts) lines.push(JSON.parse(part) as HostLine);
  });
  child.stderr.setEncoding("utf8").on("data", (text: string) => {
    stderr += text;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on("exit", (code, signal) => {
      exit = { code, signal };
      resolve(exit);
    });
  });
  /** Waits for a line that passes `check`; fails at once (with the child's stderr) if it exits. */
  const until = async (check: (line: HostLine) => boolean, what: string, timeoutMs = 30_000) => {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const line = lines.find(check);
      if (line) return line;
      if (exit) throw new Error(`The host exited (${JSON.stringify(exit)}) before ${what}:\n${stderr}`);
      if (Date.now() > end)
        throw new Error(`Timed out waiting for ${what}; the host printed ${JSON.stringify(lines)}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };
  const names = (name: string) => (line: HostLine) => line.all?.includes(name) === true;
  return {
    lines,
    until,
    names,
    alive: () => exit === undefined,
    warnings: () => lines.flatMap((line) => (line.warn === undefined ? [] : [line.warn])),
    async stop() {
      child.stdin.write("stop\n");
      const status = await Promise.race([
        exited,
        new Promise<never>((_, reject) =>
          setTimeout(() => reject(new Error("The host did not exit")), 30_000),
        ),
      ]);
      return { ...status, stderr, stopped: lines.some((line) => line.stopped) };
    },
  };
}

/** Lets uid 65534 read every folder and file under `dir`. */
async function openToAll(dir: string): Promise<void> {
  await chmod(dir, 0o755);
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    if (entry.isDirectory()) await chmod(path, 0o755);
    else if (entry.isFile()) await chmod(path, 0o644);
  }
}

describe("watchSkills in a host process: bad files are diagnostics, never a crash", {
  tags: ["slow"],
}, () => {
  it("survives a SKILL.md replaced by a symlink to itself (ELOOP) and keeps reporting", {
    timeout: 90_000,
  }, async () => {
    const { base, home, project } = await tempWorld();
    const skills = join(project, ".agents", "skills");
    await writeSkill(join(skills, "looped"));
    await writeSkill(join(skills, "stays"));
    const host = await startHost(base, project, home);
    expect((await host.until((l) => l.ready !== undefined, "the watcher to be ready")).ready).toEqual([
      "looped",
      "stays",
    ]);

    // Replaced in one step, as an editor or a sync tool would: the link lands over the file.
    const file = join(skills, "looped", "SKILL.md");
    await symlink("SKILL.md", join(skills, "looped", "SKILL.md.tmp"));
    await rename(join(skills, "looped", "SKILL.md.tmp"), file);
    await host.until((l) => l.changed?.removed.includes("looped") === true, "the looped skill to go");
    expect(host.warnings()).toContain(`Skipping symlink loop ${file}: it resolves back to itself`);
    // Handled where it happens, not by the watcher's last-resort catch.
    expect(host.warnings().filter((w) => w.startsWith("Skill watch"))).toEqual([]);

    await writeSkill(join(skills, "fresh"));
    await host.until(host.names("fresh"), "a skill added after the loop");
    expect(host.lines).toContainEqual({ changed: { added: ["fresh"], changed: [], removed: [] } });
    expect(host.alive()).toBe(true);
    expect(await host.stop()).toEqual({ code: 0, signal: null, stderr: "", stopped: true });
  });

  it("survives a skill folder made unreadable (EACCES, host run as uid 65534) and keeps reporting", {
    timeout: 90_000,
  }, async (ctx) => {
    if (process.getuid?.() !== 0) {
      ctx.skip(); // only root can start a child as another user
      return;
    }
    const { base, home, project } = await tempWorld();
    const skills = join(project, ".agents", "skills");
    await writeSkill(join(skills, "locked"));
    await writeSkill(join(skills, "open"));
    await openToAll(base);
    const host = await startHost(base, project, home, NOBODY);
    expect((await host.until((l) => l.ready !== undefined, "the watcher to be ready")).ready).toEqual([
      "locked",
      "open",
    ]);

    await chmod(join(skills, "locked"), 0o000);
    await host.until((l) => l.changed?.removed.includes("locked") === true, "the locked skill to go");
    // Root still writes there; the host's watch on the folder still sees it, and may not look.
    await writeFile(join(skills, "locked", "SKILL.md"), skillText("locked", "Edited behind the lock."));
    // A new folder the host may neither watch nor read: said when it appears, not at every rescan.
    const sealed = join(skills, "sealed");
    await mkdir(sealed);
    await chmod(sealed, 0o000);
    await host.until((l) => l.warn?.startsWith(`Cannot read folder ${sealed}`) === true, "the sealed folder");
    await writeSkill(join(skills, "fresh"));
    await openToAll(join(skills, "fresh"));
    await host.until(host.names("fresh"), "a skill added after the lock");
    expect(host.lines).toContainEqual({ changed: { added: ["fresh"], changed: [], removed: [] } });
    // Said once, when the folder became unreadable, though every event there rescans.
    const locked = join(skills, "locked");
    const said = `Cannot read folder ${locked} (permission denied); skills inside it are skipped`;
    expect(host.warnings().filter((w) => w === said)).toHaveLength(1);
    expect(host.warnings().filter((w) => w.includes(sealed))).toEqual([
      `Cannot read folder ${sealed} (permission denied); skills inside it are skipped`,
      `Cannot watch ${sealed} (EACCES: permission denied, watch '${sealed}'); changes there are not seen`,
    ]);
    expect(host.warnings().filter((w) => w.startsWith("Skill watch"))).toEqual([]);
    expect(host.alive()).toBe(true);
    expect(await host.stop()).toEqual({ code: 0, signal: null, stderr: "", stopped: true });
  });

  it("survives a file where a missing root's folder should be (ENOTDIR) and keeps reporting", {
    timeout: 90_000,
  }, async () => {
    const { base, home, project } = await tempWorld();
    await writeSkill(join(project, ".claude", "skills", "first"));
    const host = await startHost(base, project, home);
    await host.until((l) => l.ready !== undefined, "the watcher to be ready");

    // `.agents` is a file: the root .agents/skills cannot exist. The same rescan sees a new skill.
    await writeFile(join(project, ".agents"), "not a folder");
    await writeSkill(join(project, ".claude", "skills", "second"));
    await host.until(host.names("second"), "the skill added beside the file");

    // And the root is still watched for: once .agents is a folder, its skills are seen.
    await rm(join(project, ".agents"));
    await writeSkill(join(project, ".agents", "skills", "third"));
    await host.until(host.names("third"), "a skill in the new .agents/skills");
    expect(host.warnings()).toEqual([]);
    expect(host.alive()).toBe(true);
    expect(await host.stop()).toEqual({ code: 0, signal: null, stderr: "", stopped: true });
  });
});
