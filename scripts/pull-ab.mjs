// node scripts/pull-ab.mjs <checkout> [<checkout>…]: five cold pulls of the bench's 500-skill
// v0.2 pack (20 ms of loopback delay) in this process, per built checkout, for side-by-side A/B
// runs of the `pull-cold` row's v0.2 half (e.g. a worktree of an earlier commit against this one).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

for (const checkout of process.argv.slice(2).map((p) => resolve(p))) {
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
    // Two untimed pulls first (the process warms up), then five timed ones.
    for (let i = 0; i < 2; i++)
      await pull(server.url("pack2"), { cacheDir: mkdtempSync(join(work, "run-")) });
    for (let i = 0; i < 5; i++) {
      const [start, cpu] = [performance.now(), process.cpuUsage()];
      const result = await pull(server.url("pack2"), { cacheDir: mkdtempSync(join(work, "run-")) });
      const used = process.cpuUsage(cpu);
      if (result.files.length !== 500)
        throw new Error(`${checkout}: ${result.files.length} skills, expected 500`);
      runs.push(
        `${Math.round(performance.now() - start)} ms (CPU ${Math.round((used.user + used.system) / 1000)} ms)`,
      );
    }
  } finally {
    await server.close();
    rmSync(work, { recursive: true, force: true });
  }
  process.stdout.write(`${checkout}: ${runs.join(", ")}\n`);
}
