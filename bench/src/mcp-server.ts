// `node dist/mcp.js [--skills N] [--runs N]`: what loading skills over MCP costs, next to
// loading them straight from disk. A child process (this file with --serve) serves a
// generated tree with @skill/mcp's serveStdio; this process loads it with mcpStdioSource.
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { SkillService } from "@skill/core";
import { discoverySources } from "@skill/discovery";
import { mcpStdioSource, serveStdio } from "@skill/mcp";
import { skillChecksum } from "./checksum.js";
import { summarize } from "./harness.js";
import { ensureTree, layoutOf, type TreeLayout, treeId } from "./tree.js";

const BENCH_DIR = resolve(fileURLToPath(import.meta.url), "../..");
const TREES_DIR = join(BENCH_DIR, ".trees");

function diskService(layout: TreeLayout): SkillService {
  return new SkillService({
    sources: discoverySources({ cwd: layout.cwd, home: layout.home, paths: layout.paths }),
  });
}

async function serve(tree: string): Promise<void> {
  const service = diskService(layoutOf(tree));
  await service.discoverAndLoad();
  await serveStdio(service, { name: "bench", pageSize: 200 });
}

function ms(start: number): number {
  return performance.now() - start;
}

async function measure(skills: number, runs: number): Promise<void> {
  const { manifest } = ensureTree(TREES_DIR, { skills });
  const tree = join(TREES_DIR, treeId({ skills }));
  const rows: { label: string; times: number[] }[] = [
    { label: "disk (discoverySources + SkillService)", times: [] },
    { label: "MCP stdio, cold (start server, list, digest-check every SKILL.md)", times: [] },
    { label: "MCP stdio, warm (server up: list and read again)", times: [] },
  ];
  for (let run = 0; run < runs; run++) {
    let start = performance.now();
    const disk = diskService(manifest);
    await disk.discoverAndLoad();
    rows[0]?.times.push(ms(start));
    if (skillChecksum(disk.all()) !== manifest.checksum) throw new Error("disk load found other skills");

    const source = mcpStdioSource(process.execPath, [fileURLToPath(import.meta.url), "--serve", tree]);
    try {
      const client = new SkillService({ sources: [source] });
      start = performance.now();
      const report = await client.discoverAndLoad();
      rows[1]?.times.push(ms(start));
      if (report.failed.length > 0 || skillChecksum(client.all()) !== manifest.checksum) {
        throw new Error(`MCP load found other skills (${report.failed.length} failed)`);
      }
      start = performance.now();
      await client.discoverAndLoad();
      rows[2]?.times.push(ms(start));
    } finally {
      await source.close();
    }
  }
  const rss = process.resourceUsage().maxRSS / 1024;
  process.stdout.write(
    `${skills} skills (${manifest.files} files in the tree), ${runs} runs, node ${process.version}\n\n`,
  );
  process.stdout.write("| load | median ms | min ms | max ms |\n|---|---:|---:|---:|\n");
  for (const row of rows) {
    const s = summarize(row.times);
    process.stdout.write(
      `| ${row.label} | ${s.median.toFixed(0)} | ${s.min.toFixed(0)} | ${s.max.toFixed(0)} |\n`,
    );
  }
  process.stdout.write(`\nclient max RSS: ${rss.toFixed(0)} MiB\n`);
}

const { values } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== "--"),
  options: {
    serve: { type: "string" },
    skills: { type: "string", default: "1000" },
    runs: { type: "string", default: "5" },
  },
});
if (values.serve) await serve(values.serve);
else await measure(Number(values.skills), Number(values.runs));
