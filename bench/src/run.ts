// `pnpm bench [--size L]`: measures every approach side by side and writes BENCHMARKS.md.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { urlToDirName } from "@skill/remote";
import type { ApproachId } from "./approaches/registry.js";
import { interleave, mismatch, type Plan, type RunRecord, runChild } from "./harness.js";
import { summarizeProfile } from "./profile.js";
import { bigFilePack, type Pack, type PackServer, skillPack, startPackServer } from "./remote-server.js";
import {
  type ApproachStats,
  approachStats,
  type BenchResults,
  type LocalSeries,
  type Machine,
  type RemoteResults,
  renderReport,
  targetRows,
} from "./report.js";
import { DEFAULT_SEED, ensureTree, layoutOf, type TreeManifest } from "./tree.js";

const USAGE = `Usage: pnpm bench [--size S|L] [--runs N] [--warmup N] [--seed N] [--delay MS]
                  [--only local|remote] [--profile] [--note TEXT] [--out FILE]

  --size S|L     S: 100 and 1,000 skills (default); L adds 10,000 skills (~200,000 files)
  --runs N       measured runs per approach (default 5, at least 5 for the report)
  --warmup N     warm-up rounds, not counted (default 1)
  --seed N       tree generator seed (default ${DEFAULT_SEED})
  --delay MS     loopback server delay before every answer (default 20)
  --only X       run only the local or only the remote benchmarks
  --profile      profile ours at the largest size (also done when a target is missed)
  --note TEXT    a line for the report (e.g. "machine shared with other jobs")
  --out FILE     where to write the report (default: BENCHMARKS.md at the repository root)`;

const SIZES: readonly { readonly size: string; readonly skills: number }[] = [
  { size: "XS", skills: 100 },
  { size: "S", skills: 1_000 },
  { size: "L", skills: 10_000 },
];
const REMOTE_SKILLS = 500;
const REMOTE_FILES_PER_SKILL = 4;
const MIB = 1024 * 1024;
const BIG_FILE_BYTES = 50 * MIB;
const HUGE_FILE_BYTES = 200 * MIB;
const LOCAL_APPROACHES: readonly {
  readonly id: Exclude<ApproachId, "pull" | "sequential-fetch">;
  readonly label: string;
}[] = [
  { id: "floor", label: "floor (fdir + readFileSync, no YAML)" },
  { id: "crawl", label: "fdir crawl only (reference)" },
  { id: "opencode-style", label: "opencode-style (glob + gray-matter)" },
  { id: "ours", label: "ours (discoverySources + SkillService)" },
];

const BENCH_DIR = resolve(fileURLToPath(import.meta.url), "../..");
const TREES_DIR = join(BENCH_DIR, ".trees");

function log(message: string): void {
  process.stderr.write(`${message}\n`);
}

function parseOptions(argv: readonly string[]) {
  const { values } = parseArgs({
    args: argv.filter((a) => a !== "--"),
    options: {
      size: { type: "string", default: "S" },
      runs: { type: "string", default: "5" },
      warmup: { type: "string", default: "1" },
      seed: { type: "string", default: String(DEFAULT_SEED) },
      delay: { type: "string", default: "20" },
      only: { type: "string" },
      profile: { type: "boolean", default: false },
      note: { type: "string", multiple: true, default: [] },
      out: { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  const count = (name: string, value: string, min: number) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min)
      throw new Error(`--${name} expects an integer ≥ ${min}, found ${value}`);
    return n;
  };
  const size = values.size.toUpperCase();
  if (size !== "S" && size !== "L") throw new Error(`--size expects S or L, found ${values.size}`);
  if (values.only !== undefined && values.only !== "local" && values.only !== "remote") {
    throw new Error(`--only expects local or remote, found ${values.only}`);
  }
  return {
    help: values.help,
    size,
    runs: count("runs", values.runs, 1),
    warmup: count("warmup", values.warmup, 0),
    seed: count("seed", values.seed, 0),
    delayMs: count("delay", values.delay, 0),
    local: values.only !== "remote",
    remote: values.only !== "local",
    profile: values.profile,
    notes: values.note,
    out: values.out
      ? resolve(process.env.INIT_CWD ?? process.cwd(), values.out)
      : join(BENCH_DIR, "..", "BENCHMARKS.md"),
  };
}

type Options = ReturnType<typeof parseOptions>;

function progress(prefix: string, options: Options) {
  return (e: { id: string; round: number; warmup: boolean; record: RunRecord }) =>
    log(
      `  ${prefix} ${e.warmup ? "warm-up" : `run ${e.round - options.warmup + 1}/${options.runs}`} ${e.id}: ${e.record.ms.toFixed(1)} ms, ` +
        `${(e.record.maxRssKB / 1024).toFixed(1)} MB, found ${e.record.found}`,
    );
}

async function measureLocal(manifest: TreeManifest, size: string, options: Options): Promise<LocalSeries> {
  const layout = layoutOf(manifest);
  const plans: Plan[] = LOCAL_APPROACHES.map(({ id }) => ({
    id,
    task: () => ({ approach: id, input: layout }),
  }));
  const records = await interleave(plans, { ...options, onRun: progress(size, options) });
  return {
    size,
    skills: manifest.skills,
    files: manifest.files,
    decoys: manifest.decoys,
    approaches: LOCAL_APPROACHES.map(({ id, label }) =>
      approachStats(id, label, records.get(id) ?? [], (r) => mismatch(r, manifest)),
    ),
  };
}

/** Why a downloaded copy of `pack` under `dir` is incomplete, or `undefined`. */
function checkDownload(dir: string, pack: Pack): string | undefined {
  for (const skill of pack.skills) {
    for (const [path, body] of skill.files) {
      const size = Buffer.isBuffer(body) ? body.length : body.size;
      const stat = statSync(join(dir, skill.name, path), { throwIfNoEntry: false });
      if (stat?.size !== size)
        return `${skill.name}/${path} ${stat ? `has ${stat.size} bytes` : "is missing"}`;
    }
  }
  return undefined;
}

function freshDir(parent: string): string {
  return mkdtempSync(join(parent, "run-"));
}

async function measureRemote(options: Options): Promise<RemoteResults> {
  const packs = {
    pack: skillPack({ skills: REMOTE_SKILLS, filesPerSkill: REMOTE_FILES_PER_SKILL }),
    small: bigFilePack(1024),
    big: bigFilePack(BIG_FILE_BYTES),
    huge: bigFilePack(HUGE_FILE_BYTES),
  };
  const server = await startPackServer(packs, { delayMs: options.delayMs });
  const work = mkdtempSync(join(tmpdir(), "skill-bench-remote-"));
  try {
    return await remoteSeries(server, packs, work, options);
  } finally {
    await server.close();
    rmSync(work, { recursive: true, force: true });
  }
}

async function remoteSeries(
  server: PackServer,
  packs: Readonly<Record<"pack" | "small" | "big" | "huge", Pack>>,
  work: string,
  options: Options,
): Promise<RemoteResults> {
  const url = server.url("pack");
  const limits = { maxFileBytes: 2 * HUGE_FILE_BYTES, maxTotalBytes: 2 * HUGE_FILE_BYTES };
  /** A download into a fresh folder per run, checked file by file against the pack afterwards. */
  const downloadPlan = (
    id: string,
    approach: "pull" | "sequential-fetch",
    pack: keyof typeof packs,
    extra: object = {},
  ): Plan => {
    let dir = "";
    return {
      id,
      task: () => {
        dir = freshDir(work);
        server.resetStats();
        const target = server.url(pack);
        return approach === "pull"
          ? { approach, input: { url: target, cacheDir: dir, ...extra } }
          : { approach, input: { url: target, dir, ...extra } };
      },
      after: () => {
        const copy = approach === "pull" ? join(dir, urlToDirName(server.url(pack))) : dir;
        const problem = checkDownload(copy, packs[pack]);
        rmSync(dir, { recursive: true, force: true });
        return { server: server.stats(), ...(problem ? { problem } : {}) };
      },
    };
  };
  const check = (skills: number) => (r: RunRecord) =>
    r.problem ?? (r.found === skills ? undefined : `found ${r.found} skills, expected ${skills}`);

  log(`remote: cold pull vs sequential fetch (${REMOTE_SKILLS} × ${REMOTE_FILES_PER_SKILL} files)`);
  const cold = await interleave(
    [downloadPlan("pull", "pull", "pack"), downloadPlan("sequential", "sequential-fetch", "pack")],
    {
      ...options,
      onRun: progress("cold", options),
    },
  );

  log("remote: warm pull");
  const warmDir = freshDir(work);
  await runChild({ approach: "pull", input: { url, cacheDir: warmDir } });
  const warm = await interleave(
    [
      {
        id: "warm",
        task: () => {
          server.resetStats();
          return { approach: "pull", input: { url, cacheDir: warmDir } };
        },
        after: (result) => {
          const problem = result.fromCache
            ? "served from cache: the server was not reached"
            : checkDownload(join(warmDir, urlToDirName(url)), packs.pack);
          return { server: server.stats(), ...(problem ? { problem } : {}) };
        },
      },
    ],
    { ...options, onRun: progress("warm", options) },
  );

  log(`remote: peak RSS while pulling one big file`);
  const memory = await interleave(
    [
      downloadPlan("small", "pull", "small", limits),
      downloadPlan("big", "pull", "big", limits),
      downloadPlan("huge", "pull", "huge", limits),
      downloadPlan("buffered", "sequential-fetch", "big"),
      downloadPlan("streamed", "sequential-fetch", "big", { stream: true }),
    ],
    { ...options, onRun: progress("memory", options) },
  );

  const get = (map: Map<string, RunRecord[]>, id: string) => map.get(id) ?? [];
  const stats = (map: Map<string, RunRecord[]>, id: string, label: string, skills: number): ApproachStats =>
    approachStats(id, label, get(map, id), check(skills));
  return {
    delayMs: options.delayMs,
    skills: REMOTE_SKILLS,
    files: REMOTE_SKILLS * REMOTE_FILES_PER_SKILL,
    cold: {
      pull: stats(cold, "pull", "`pull`", REMOTE_SKILLS),
      sequential: stats(cold, "sequential", "sequential `fetch`, one file at a time", REMOTE_SKILLS),
    },
    warm: stats(warm, "warm", "warm `pull`", REMOTE_SKILLS),
    memory: {
      bigBytes: BIG_FILE_BYTES,
      hugeBytes: HUGE_FILE_BYTES,
      small: stats(memory, "small", "`pull`, the pack with a 1 KB file (baseline)", 1),
      big: stats(memory, "big", `\`pull\`, a ${BIG_FILE_BYTES / MIB} MB file`, 1),
      huge: stats(memory, "huge", `\`pull\`, a ${HUGE_FILE_BYTES / MIB} MB file`, 1),
      buffered: stats(
        memory,
        "buffered",
        `sequential \`fetch\` + \`arrayBuffer()\`, the ${BIG_FILE_BYTES / MIB} MB file (reference)`,
        1,
      ),
      streamed: stats(
        memory,
        "streamed",
        `Node's \`fetch\` streamed to the file, the ${BIG_FILE_BYTES / MIB} MB file (reference)`,
        1,
      ),
    },
  };
}

function remoteMemoryStats(remote: RemoteResults): ApproachStats[] {
  const { small, big, huge, buffered, streamed } = remote.memory;
  return [small, big, huge, buffered, streamed];
}

async function profileOurs(manifest: TreeManifest, size: string): Promise<BenchResults["profile"]> {
  const dir = join(TREES_DIR, "profiles", `${size}-${Date.now()}`);
  mkdirSync(dir, { recursive: true });
  const layout = layoutOf(manifest);
  await runChild({ approach: "ours", input: layout }, { nodeArgs: ["--cpu-prof", `--cpu-prof-dir=${dir}`] });
  const file = readdirSync(dir).find((f) => f.endsWith(".cpuprofile"));
  if (!file) throw new Error(`node --cpu-prof wrote no profile in ${dir}`);
  log(`profile: ${join(dir, file)}`);
  return { size, summary: summarizeProfile(join(dir, file)) };
}

function machine(loadStart: number): Machine {
  const cpu = cpus();
  return {
    cpu: cpu[0]?.model.trim() ?? "unknown CPU",
    cores: cpu.length,
    memGiB: totalmem() / 1024 ** 3,
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    date: new Date().toISOString().slice(0, 10),
    loadStart,
    loadEnd: loadavg()[0] ?? 0,
  };
}

async function main(): Promise<number> {
  let options: Options;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (error) {
    log(`${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`);
    return 2;
  }
  if (options.help) {
    log(USAGE);
    return 0;
  }
  const started = performance.now();
  const loadStart = loadavg()[0] ?? 0;
  const local: LocalSeries[] = [];
  const manifests = new Map<string, TreeManifest>();

  if (options.local) {
    for (const { size, skills } of SIZES.filter((s) => s.size !== "L" || options.size === "L")) {
      const t0 = performance.now();
      const { manifest, reused } = ensureTree(TREES_DIR, { skills, seed: options.seed });
      log(
        `${size}: ${reused ? "reusing" : "generated"} tree of ${manifest.skills} skills, ${manifest.files} files` +
          ` (${((performance.now() - t0) / 1000).toFixed(1)} s)`,
      );
      manifests.set(size, manifest);
      local.push(await measureLocal(manifest, size, options));
    }
  }
  const remote = options.remote ? await measureRemote(options) : undefined;

  const partial = {
    command: `pnpm bench${options.size === "L" ? " --size L" : ""}`,
    runs: options.runs,
    warmup: options.warmup,
    seed: options.seed,
    notes: options.notes,
    local,
    ...(remote ? { remote } : {}),
  };
  const largest = local.at(-1);
  const missed = targetRows({ ...partial, machine: machine(loadStart), durationMs: 0 }).some(
    (r) => r.result !== "met" && r.result !== "–" && r.target.startsWith("ours"),
  );
  const profile =
    largest && (options.profile || missed)
      ? await profileOurs(manifests.get(largest.size) as TreeManifest, largest.size)
      : undefined;

  const results: BenchResults = {
    ...partial,
    ...(profile ? { profile } : {}),
    machine: machine(loadStart),
    durationMs: performance.now() - started,
  };
  mkdirSync(TREES_DIR, { recursive: true });
  writeFileSync(join(TREES_DIR, "results.json"), `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(options.out, renderReport(results));
  log(`wrote ${options.out}`);
  for (const row of targetRows(results))
    log(`  ${row.result.replace(/\*/g, "").padEnd(7)} ${row.target}: ${row.measured}`);

  const problems = [
    ...local.flatMap((s) => s.approaches.map((a) => a.problem && `${s.size} ${a.id}: ${a.problem}`)),
    ...(remote
      ? [remote.cold.pull, remote.cold.sequential, remote.warm, ...remoteMemoryStats(remote)].map(
          (a) => a.problem && `remote ${a.id}: ${a.problem}`,
        )
      : []),
  ].filter((p): p is string => Boolean(p));
  for (const p of problems) log(`MISMATCH ${p}`);
  return problems.length > 0 ? 1 : 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    log(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exitCode = 2;
  },
);
