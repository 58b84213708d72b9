// node scripts/pull-ab.mjs <checkout> [<checkout>…] [--rounds N]: cold pulls of the bench's
// 500-skill v0.2 pack (20 ms of loopback delay), per built checkout, for side-by-side A/B runs of
// the `pull-cold` row's v0.2 half (e.g. a worktree of an earlier commit against this one). Each
// round runs every checkout in a fresh process, in turn (A B A B …), so neither gets the other's
// warm heap or the later slot; each process pulls twice untimed, then three times timed.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

async function child(checkout) {
  const { skillPack, packV2, startPackServer } = await import(`${checkout}/bench/dist/remote-server.js`);
  const { pull } = await import(`${checkout}/packages/remote/dist/index.js`);
  const work = mkdtempSync(join(tmpdir(), "pull-ab-"));
  const pack = skillPack({ skills: 500, filesPerSkill: 4 });
  // 20 ms before every answer, whichever way the checkout's pack server takes it: a number
  // today, `{ delayMs }` before 2026-12 (an object alone would leave the older one at 0 ms).
  const delay = Object.assign(new Number(20), { delayMs: 20 });
  const server = await startPackServer({ pack2: await packV2(pack, work) }, delay);
  const runs = [];
  try {
    for (let i = 0; i < 5; i++) {
      const [start, cpu] = [performance.now(), process.cpuUsage()];
      const result = await pull(server.url("pack2"), { cacheDir: mkdtempSync(join(work, "run-")) });
      const used = process.cpuUsage(cpu);
      if (result.files.length !== 500)
        throw new Error(`${checkout}: ${result.files.length} skills, expected 500`);
      if (i >= 2) runs.push([performance.now() - start, (used.user + used.system) / 1000]);
    }
  } finally {
    await server.close();
    rmSync(work, { recursive: true, force: true });
  }
  process.stdout.write(JSON.stringify(runs));
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const args = process.argv.slice(2);
if (args[0] === "--child") await child(args[1]);
else {
  const at = args.indexOf("--rounds");
  const rounds = at === -1 ? 3 : Number(args.splice(at, 2)[1]);
  const checkouts = args.map((p) => resolve(p));
  const runs = new Map(checkouts.map((c) => [c, []]));
  for (let r = 0; r < rounds; r++) {
    for (const checkout of checkouts) {
      const out = execFileSync(process.execPath, [fileURLToPath(import.meta.url), "--child", checkout]);
      runs.get(checkout).push(...JSON.parse(out));
    }
  }
  for (const [checkout, rs] of runs) {
    const wall = rs.map(([w]) => w);
    const cpu = rs.map(([, c]) => c);
    process.stdout.write(
      `${checkout}: ${rs.length} pulls, wall median ${Math.round(median(wall))} ms (${Math.round(Math.min(...wall))}–${Math.round(Math.max(...wall))}), CPU median ${Math.round(median(cpu))} ms (${Math.round(Math.min(...cpu))}–${Math.round(Math.max(...cpu))})\n`,
    );
  }
}
