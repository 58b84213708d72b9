// One measured run in a fresh process: `node child.js '<ChildTask JSON>'` prints one JSON line,
// a ChildResult. The approach's modules load before the clock starts: it is timed on its work alone.
import { APPROACHES, type ChildTask } from "./approaches/index.js";
import { type ChildOutput, type ChildResult, skillChecksum } from "./protocol.js";

const task = JSON.parse(process.argv[2] ?? "{}") as ChildTask;
const load = APPROACHES[task.approach];
if (!load) throw new Error(`Unknown approach ${JSON.stringify(task.approach)}`);
const run = (await load()) as (input: unknown) => Promise<ChildOutput>;

const start = performance.now();
const { pairs, wallMs, ...rest } = await run(task.input);
const ms = performance.now() - start;

const found = typeof pairs === "function" ? pairs() : pairs;
const maxRssKB = process.resourceUsage().maxRSS;
const result: ChildResult = { ...rest, ms: wallMs ?? ms, maxRssKB, checksum: found && skillChecksum(found) };
process.stdout.write(`${JSON.stringify(result)}\n`);
