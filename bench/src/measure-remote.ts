// The groups measured against the loopback pack server: pulls (index v0.1 and v0.2), the remote
// baselines and memory, and `skill add` of a local pack against copying it.
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { urlToDirName } from "@skill/remote";
import { copyFloorScript } from "./approaches/spawn.js";
import { interleave, type Plan, type RunRecord, runChild, type Series } from "./harness.js";
import { CLI, cliMissing, log } from "./paths.js";
import {
  bigFilePack,
  type Pack,
  type PackServer,
  packV2,
  skillPack,
  startPackServer,
} from "./remote-server.js";
import type { Group } from "./results.js";

type Rounds = Omit<Series, "prefix"> & { readonly delayMs: number };
const MIB = 1024 * 1024;

/** Why a copy of `pack` under `dir` is incomplete, or `undefined`. */
function checkCopy(dir: string, pack: Pack): string | undefined {
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

const found = (skills: number) => (r: RunRecord) =>
  r.found === skills ? undefined : `found ${r.found} skills, expected ${skills}`;

/**
 * A pack of 500 skills × 4 files served as index v0.1 and v0.2: cold pulls of both interleaved
 * with the sequential baseline, warm pulls into a filled cache, then peak RSS while pulling one
 * big file; and `skill add` of a local pack.
 */
export async function measureRemote(rounds: Rounds): Promise<Record<"pulls" | "remote" | "add", Group>> {
  const work = mkdtempSync(join(tmpdir(), "skill-bench-remote-"));
  const pack = skillPack({ skills: 500, filesPerSkill: 4 });
  const packs: Readonly<Record<string, Pack>> = {
    pack,
    pack2: await packV2(pack, work),
    small: bigFilePack(1024),
    big: bigFilePack(50 * MIB),
    huge: bigFilePack(200 * MIB),
  };
  const server = await startPackServer(packs, { delayMs: rounds.delayMs });
  try {
    return { ...(await pulls(server, packs, work, rounds)), add: await measureAdd(work, rounds) };
  } finally {
    await server.close();
    rmSync(work, { recursive: true, force: true });
  }
}

async function pulls(
  server: PackServer,
  packs: Readonly<Record<string, Pack>>,
  work: string,
  rounds: Rounds,
) {
  const limits = { maxFileBytes: 400 * MIB, maxTotalBytes: 400 * MIB };
  /**
   * A download into a fresh folder per run, checked file by file against the pack afterwards.
   * With `keep`, the folder stays until `work` is removed at the end: on a disk whose ext4 has no
   * journal (the bench machine's), a new inode skips every inode of its block group freed in
   * the last 1–5 minutes (the kernel's `recently_deleted`), so deleting a run's 4,000 files made
   * every file the next run created several times dearer — a cost of the harness, not of a pull.
   */
  const download = (
    id: string,
    label: string,
    pack: string,
    sequential: object | false = false,
    keep = false,
  ): Plan => {
    let dir = "";
    const skills = packs[pack]?.skills.length ?? 0;
    return {
      id,
      label,
      task: () => {
        dir = mkdtempSync(join(work, "run-"));
        server.resetStats();
        const url = server.url(pack);
        if (sequential) return { approach: "sequential-fetch", input: { url, dir, ...sequential } };
        return {
          approach: "pull",
          input: { url, cacheDir: dir, ...(pack === "pack" || pack === "pack2" ? {} : limits) },
        };
      },
      after: () => {
        const problem = checkCopy(
          sequential ? dir : join(dir, urlToDirName(server.url(pack))),
          packs[pack] as Pack,
        );
        if (!keep) rmSync(dir, { recursive: true, force: true });
        return { server: server.stats(), ...(problem ? { problem } : {}) };
      },
      check: found(skills),
    };
  };
  /** Pulls into one cache, filled once before the runs: every run finds the pack unchanged. */
  const warm = async (id: string, label: string, pack: string): Promise<Plan> => {
    const url = server.url(pack);
    const cacheDir = mkdtempSync(join(work, "run-"));
    await runChild({ approach: "pull", input: { url, cacheDir } });
    const task = () => {
      server.resetStats();
      return { approach: "pull", input: { url, cacheDir } } as const;
    };
    const after = (result: { fromCache?: boolean }) => {
      const problem = result.fromCache
        ? "served from cache: the server was not reached"
        : checkCopy(join(cacheDir, urlToDirName(url)), packs[pack] as Pack);
      return { server: server.stats(), ...(problem ? { problem } : {}) };
    };
    return { id, label, task, after, check: found(500) };
  };

  log("remote: cold pull (index v0.1 and v0.2) vs sequential fetch (500 × 4 files)");
  const cold = await interleave(
    [
      download("v1-cold", "index v0.1, cold (a request per file)", "pack", false, true),
      download("v2-cold", "index v0.2, cold (an archive per skill)", "pack2", false, true),
      download("sequential", "sequential `fetch`, one file at a time", "pack", {}, true),
    ],
    { ...rounds, prefix: "cold" },
  );
  log("remote: warm pulls (index v0.1 and v0.2)");
  const warmPlans = [
    await warm("warm", "warm `pull`", "pack"),
    await warm("v2-warm", "index v0.2, warm (unchanged, same cache)", "pack2"),
  ];
  const warmed = await interleave(warmPlans, { ...rounds, prefix: "warm" });
  log("remote: peak RSS while pulling one big file");
  const memory = await interleave(
    [
      download("small", "`pull`, the pack with a 1 KB file (baseline)", "small"),
      download("big", "`pull`, a 50 MB file", "big"),
      download("huge", "`pull`, a 200 MB file", "huge"),
      download("buffered", "sequential `fetch` + `arrayBuffer()`, the 50 MB file (reference)", "big", {}),
      download("streamed", "Node's `fetch` streamed to the file, the 50 MB file (reference)", "big", {
        stream: true,
      }),
    ],
    { ...rounds, prefix: "memory" },
  );
  const [v1, v2, sequential] = cold.stats as [
    (typeof cold.stats)[0],
    (typeof cold.stats)[0],
    (typeof cold.stats)[0],
  ];
  return {
    pulls: { stats: [v1, v2, warmed.stats[1] as (typeof cold.stats)[0]] },
    remote: {
      stats: [
        { ...v1, id: "pull", label: "`pull`" },
        sequential,
        warmed.stats[0] as (typeof cold.stats)[0],
        ...memory.stats,
      ],
    },
  };
}

/**
 * `skill add` of a local pack of 50 skills into a fresh project, against the copy floor (a
 * `node -e` copying the same skill folders with `fs.cpSync`), interleaved; every run must leave
 * every file of the pack under `.agents/skills`.
 */
async function measureAdd(work: string, rounds: Rounds): Promise<Group> {
  const missing = cliMissing();
  if (missing) return { stats: [], unavailable: missing };
  const pack = skillPack({ skills: 50, filesPerSkill: 4, seed: 2 });
  const from = join(work, "add-pack", "skills");
  for (const skill of pack.skills) {
    for (const [path, body] of skill.files) {
      mkdirSync(dirname(join(from, skill.name, path)), { recursive: true });
      writeFileSync(join(from, skill.name, path), body as Buffer);
    }
  }
  const home = mkdtempSync(join(work, "run-"));
  const plan = (id: "add" | "copy", label: string): Plan => {
    let project = "";
    return {
      id,
      label,
      task: () => {
        project = mkdtempSync(join(work, "run-"));
        const add = [CLI, "add", from, "--for", "codex", "--json", "--cwd", project, "--home", home];
        const args = id === "add" ? add : ["-e", copyFloorScript(from, join(project, ".agents", "skills"))];
        return { approach: "spawn", input: { args, env: {}, count: "installed" } };
      },
      after: () => {
        const problem = checkCopy(join(project, ".agents", "skills"), pack);
        rmSync(project, { recursive: true, force: true });
        return problem ? { problem } : {};
      },
      check: (r) => (r.found === 50 ? undefined : `installed ${r.found} skills, expected 50`),
    };
  };
  log("add: skill add of a local pack vs copying its folders (50 × 4 files)");
  const plans = [
    plan("add", "`skill add <pack> --for codex`"),
    plan("copy", "copy floor: `fs.cpSync` of each skill folder"),
  ];
  return { stats: (await interleave(plans, { ...rounds, prefix: "add" })).stats };
}
