import { compareCodeUnits, SkillService } from "@skill/core";
import { mcpStdioSource } from "@skill/mcp/stdio";
import type { ChildOutput } from "../protocol.js";

export interface McpLoadInput {
  /** The server's command line after `node`: `cli.js serve-mcp --home … --cwd … --config …`. */
  readonly server: readonly string[];
  /** Untimed loads over the running server before the timed one (the first starts it). */
  readonly warmups: number;
  /** Skills read one by one after the timed load, each `read` timed. */
  readonly reads: number;
}

/**
 * Skills over MCP: the server started over stdio and warmed by untimed loads; then one
 * `discoverAndLoad` of a fresh `SkillService` over it is timed (its `skills/list` entries carry
 * their heads: no SKILL.md is fetched), then single reads. `startMs`: the first, untimed load.
 */
export async function run(input: McpLoadInput): Promise<ChildOutput> {
  const [command, ...args] = [process.execPath, ...input.server];
  const source = mcpStdioSource(command as string, args, {
    id: "mcp:bench",
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
  });
  try {
    let start = performance.now();
    let startMs = Number.NaN;
    for (let i = 0; i < Math.max(1, input.warmups); i++) {
      const warm = new SkillService({ sources: [source] });
      const report = await warm.discoverAndLoad();
      if (i === 0) startMs = performance.now() - start;
      const first = warm.all()[0];
      if (!first || report.failed.length > 0) {
        const why = report.failed[0]?.error.message ?? report.diagnostics.map((d) => d.message).join("; ");
        throw new Error(
          `the warm-up load over MCP found ${warm.all().length} skills: ${why || "no diagnostics"}`,
        );
      }
      await warm.read(first.name);
    }
    const service = new SkillService({ sources: [source] });
    const cpu = process.cpuUsage();
    start = performance.now();
    const report = await service.discoverAndLoad();
    const wallMs = performance.now() - start;
    const used = process.cpuUsage(cpu);
    const names = service
      .all()
      .map((s) => s.name)
      .sort(compareCodeUnits);
    const read: number[] = [];
    for (let i = 0; i < input.reads && names.length > 1; i++) {
      // Spread over the listing, never the skill the warm-ups read.
      const name = names[1 + Math.floor((i * (names.length - 1)) / input.reads)] as string;
      start = performance.now();
      const skill = await service.read(name);
      read.push(performance.now() - start);
      if (skill.name !== name) throw new Error(`read ${name} returned ${skill.name}`);
    }
    // This process's CPU time only: the server's is its own process's.
    const [skills, cpuMs] = [service.all(), (used.user + used.system) / 1000];
    return {
      found: skills.length,
      pairs: skills,
      failed: report.failed.length,
      wallMs,
      cpuMs,
      samples: { read, startMs },
    };
  } finally {
    await source.close();
  }
}
