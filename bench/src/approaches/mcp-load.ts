import { compareCodeUnits, SkillService } from "@skill/core";
import { mcpStdioSource } from "@skill/mcp/stdio";
import type { ChildOutput } from "../protocol.js";

// `server` (`cli.js serve-mcp …`) started over stdio and warmed by `warmups` untimed loads; then one
// `discoverAndLoad` of a fresh `SkillService` over it is timed, then `reads` single reads.
// `env`: more of the server's environment (its cache folder).
type Input = { server: readonly string[]; warmups: number; reads: number; env?: Record<string, string> };
export async function run(input: Input): Promise<ChildOutput> {
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", ...input.env };
  const source = mcpStdioSource(process.execPath, [...input.server], { id: "mcp:bench", env });
  try {
    for (let i = 0; i < Math.max(1, input.warmups); i++) {
      const warm = new SkillService({ sources: [source] });
      const report = await warm.discoverAndLoad();
      const [first, found] = [warm.all()[0], warm.all().length];
      if (!first || report.failed.length > 0) {
        const why = report.failed[0]?.error.message ?? report.diagnostics.map((d) => d.message).join("; ");
        throw new Error(`the warm-up load over MCP found ${found} skills: ${why || "no diagnostics"}`);
      }
      await warm.read(first.name);
    }
    const service = new SkillService({ sources: [source] });
    let start = performance.now();
    const report = await service.discoverAndLoad();
    const wallMs = performance.now() - start;
    const names = service.all().map((s) => s.name);
    names.sort(compareCodeUnits);
    const read: number[] = [];
    for (let i = 0; i < input.reads && names.length > 1; i++) {
      // Spread over the listing, never the skill the warm-ups read.
      const name = names[1 + Math.floor((i * (names.length - 1)) / input.reads)] as string;
      start = performance.now();
      const skill = await service.read(name);
      read.push(performance.now() - start);
      if (skill.name !== name) throw new Error(`read ${name} returned ${skill.name}`);
    }
    const skills = service.all();
    return { found: skills.length, pairs: skills, failed: report.failed.length, wallMs, samples: { read } };
  } finally {
    await source.close();
  }
}
