// One measured run in a fresh process: `node child.js '<ChildTask JSON>'`. Prints one JSON line.
import { performance } from "node:perf_hooks";
import { APPROACHES, type ChildTask } from "./approaches/registry.js";
import type { LocalOutput, RemoteOutput } from "./approaches/types.js";
import { skillChecksum } from "./checksum.js";
import type { ChildResult } from "./harness.js";

const task = JSON.parse(process.argv[2] ?? "{}") as ChildTask;
const load = APPROACHES[task.approach];
if (!load) throw new Error(`Unknown approach ${JSON.stringify(task.approach)}`);
// Modules load before the clock starts: every approach is timed on its work alone.
const { run } = (await load()) as { run: (input: unknown) => Promise<LocalOutput & RemoteOutput> };

const cpu = process.cpuUsage();
const start = performance.now();
const output = await run(task.input);
const ms = performance.now() - start;
const used = process.cpuUsage(cpu);

const { pairs: found, wallMs, cpuMs, ...rest } = output;
const pairs = typeof found === "function" ? found() : found;
const result: ChildResult = {
  ...rest,
  ms: wallMs ?? ms,
  cpuMs: cpuMs ?? (used.user + used.system) / 1000,
  maxRssKB: process.resourceUsage().maxRSS,
  ...(pairs ? { checksum: skillChecksum(pairs) } : {}),
};
process.stdout.write(`${JSON.stringify(result)}\n`);
