import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { type RunRecord, statsOf } from "./harness.js";
import { fillMarkers, reportBlocks } from "./report.js";
import type { BenchResults, Group, Stats } from "./results.js";

function runs(ms: number, rssMB: number, extra: Partial<RunRecord> = {}): RunRecord[] {
  return [0.9, 1, 1.1].map((f) => ({ ms: ms * f, maxRssKB: rssMB * 1024, found: 1000, ...extra }));
}

function stats(id: string, ms: number, rssMB = 60, extra: Partial<RunRecord> = {}): Stats {
  return statsOf({ id }, runs(ms, rssMB, extra));
}

function load(skills: number, ours: number, more: Stats[] = []): Group {
  const approaches = [stats("sync-floor", 90), stats("opencode-style", 500, 120)];
  return {
    stats: [...approaches, stats("ours", ours, 70), ...more],
    facts: { skills, files: skills * 20, decoys: skills / 20 },
  };
}

function changes(skills: number): Group {
  const samples = {
    update: [1, 2, 3, 4, 5],
    reload: [300, 310, 320],
    event: [104, 106, 108],
    lost: [0],
  };
  return { stats: [], samples, facts: { skills, debounceMs: 100, peakRssMB: 90 } };
}

function results(groups: Record<string, Group>, command = "pnpm bench --size L"): BenchResults {
  const machine = {
    cpu: "Test CPU",
    cores: 2,
    memGiB: 8,
    node: "v20.19.0",
    platform: "linux x64",
    date: "2025-01-01",
  };
  return {
    command,
    machine: { ...machine, loadStart: 0.5, loadEnd: 0.7 },
    ...{ runs: 3, warmup: 1, seed: 42, delayMs: 20, durationMs: 60_000 },
    groups,
  };
}

const server = (requests: number) => ({
  server: { requests, notModified: 0, bodyBytes: 100 },
});

/** A run of every group, as a full `--size L` run writes it. */
const full = results({
  "load-XS": load(100, 30, [stats("crawl-stat", 5), stats("warm", 7), stats("warm-changed", 9)]),
  "load-S": load(1000, 150),
  "load-L": load(10_000, 1400),
  "changes-XS": changes(100),
  "changes-S": changes(1000),
  "changes-L": changes(10_000),
  startup: {
    stats: [stats("cli", 60), stats("node", 30), stats("vercel", 120), stats("cli22", 50)],
    facts: { skills: 100, node: "v20.19.0", skillsVersion: "1.7.4", peerNode: "v22.23.5" },
  },
  pulls: {
    stats: [
      stats("v1-cold", 6000, 80, server(2001)),
      stats("v2-cold", 1500, 80, server(501)),
      stats("v2-warm", 30, 60, server(1)),
    ],
  },
  list: {
    stats: [1000, 2000].flatMap((n) => [
      stats(`table-${n}`, n / 5),
      stats(`json-${n}`, n / 6),
      stats(`pipe-${n}`, n / 6),
    ]),
  },
  add: { stats: [stats("add", 420), stats("copy", 200)] },
  doctor: { stats: [stats("doctor", 300), stats("ours", 150)], facts: { presets: 11 } },
  mcp: { stats: [stats("mcp", 300), stats("ours", 150)], samples: { read: [1, 2, 3] } },
  "mcp-http": {
    stats: [
      stats("ours", 2000, 90, { server: { rps: 460, cpuMs: 1800, errors: 0, idleHeapKB: 8.5 } }),
      stats("ours-default", 3000, 90, { server: { rps: 280, cpuMs: 3000, errors: 0, idleHeapKB: 8.5 } }),
      stats("sdk", 2100, 80, { server: { rps: 440, cpuMs: 1700, errors: 0, idleHeapKB: 9.75 } }),
    ],
  },
  search: {
    stats: [],
    samples: {
      coldBuild: [140, 150],
      build: [90],
      query: [1],
      replace: [0.5],
      "ours@1": [0.8],
      "ours@5": [0.9],
      requests: [212],
    },
  },
});

describe("the report's blocks", () => {
  it("summarizes runs: median, min, max, RSS in MB, and the skills found", () => {
    const a = stats("ours", 100, 64);
    expect(a.time).toEqual({ median: 100, min: 90, max: 110.00000000000001 });
    expect(a.rssMB.median).toBe(64);
    expect(a.found).toBe("1,000");
    const check = (r: RunRecord) => (r.found === 1000 ? undefined : `found ${r.found}`);
    const mixed = statsOf({ id: "x", check }, [...runs(1, 1), ...runs(1, 1, { found: 990 })]);
    expect(mixed).toMatchObject({ found: "990–1,000", problem: "found 990" });
  });

  it("write the run's line, the targets, a table per size and the costs of change", () => {
    const blocks = reportBlocks(full, { scaling: "B-scaling.svg", latency: "B-latency.svg" });
    expect(blocks.run).toContain(
      "Written by `pnpm bench --size L` from one run (60.0 s): 1 warm-up round, then 3 measured rounds",
    );
    expect(blocks.run).toContain(
      "**Machine:** Test CPU, 2 cores, 8.0 GiB RAM, Node v20.19.0, linux x64, 2025-01-01",
    );
    expect(blocks.targets).toContain(
      "| discover + load, 1,000 skills, ours / synchronous floor (median wall time) | ≤ 1.4× | 1.67× (150 / 90.0 ms) | **missed** |",
    );
    expect(blocks.targets).toContain(
      "| one changed SKILL.md among 10,000: `service.update` of that file (median) | ≤ 20 ms | 3.00 ms",
    );
    expect(blocks["load-S"]).toMatch(/^\| approach \|/);
    expect(blocks["load-S"]).toContain(
      "| ours (discoverySources + SkillService) | 150 | 135 | 165 | 70.0 | 1,000 | ✓ |",
    );
    expect(blocks.changes).toContain(
      "| 10,000 | `service.update([file])` | 5 | 3.00 | 1.40 | 4.60 | 1.00 | 5.00 |",
    );
    expect(blocks["scaling-chart"]).toBe("![Cost per skill by tree size, log scales](B-scaling.svg)");
    expect(blocks["latency-chart"]).toBe("![Latency distribution of one change](B-latency.svg)");
    expect(reportBlocks(full)["scaling-chart"]).toBeUndefined();
  });

  it("write start-up, pulls, add, doctor, MCP and search tables", () => {
    const blocks = reportBlocks(full);
    expect(blocks.startup).toContain("| process | median ms | min ms | max ms | skills listed | matches |");
    expect(blocks.startup).toContain("| `node -e 0` (v20.19.0) | 30.0 | 27.0 | 33.0 | – | ✓ |");
    expect(blocks.pulls).toContain(
      "| index v0.2, cold (an archive per skill) | 1,500 | 1,350 | 1,650 | 501 | 100 | 80.0 | 1,000 | ✓ |",
    );
    expect(blocks.targets).toContain(
      "| cold pull of a 500-skill pack at 20 ms latency, v0.1 per-file / v0.2 archives | v0.2 ≥ 3× faster | 4.00× faster",
    );
    expect(blocks.add).toContain("| `skill add <pack> --for codex` | 420 | 378 | 462 | 60.0 | 1,000 | ✓ |");
    expect(blocks.list).toContain("| `skill list --json`, 2,000 real skills | 333 |");
    expect(blocks.doctor).toContain("| `compareAgents` over 11 presets (what `skill doctor` runs) | 300 |");
    expect(blocks["mcp-http"]).toContain(
      "| the SDK's own: `SkillsExtension.load` of the same skill folders, attached per session | 440 | 440 | 440 | 1,700 | 9.75 | 0 | ✓ |",
    );
    expect(blocks.mcp).toContain(
      "| `discoverAndLoad` over `skill serve-mcp` (stdio; server started and warmed first) | 300 |",
    );
    expect(blocks.search).toContain(
      "| `createSkillIndex`, first in the process | 145 | 149 | 140 | 150 | 2 |",
    );
  });

  it("say why a group was not measured, and write nothing for a group not run", () => {
    const blocks = reportBlocks(
      results(
        { mcp: { stats: [], unavailable: "cli.js is not built" }, "load-S": load(1000, 150) },
        "pnpm bench",
      ),
    );
    expect(blocks.mcp).toBe("Not measured: cli.js is not built.");
    expect(blocks.startup).toBeUndefined();
    expect(blocks.targets).toContain("not measured: needs `--size L` | not measured |");
    expect(blocks.targets).toContain("not measured: not in this run's `--only` | not measured |");
    const missing = {
      stats: [stats("cli", 60), stats("node", 30)],
      facts: { skills: 100 },
      missing: { vercel: "npm failed" },
    };
    const startup = reportBlocks(results({ startup: missing }));
    expect(startup.startup).toContain("vercel: not measured: npm failed.");
    expect(startup.targets).toContain("| < 1.0× (ours faster) | not measured: npm failed | not measured |");
  });
});

describe("the markers", () => {
  const text = [
    "# Title",
    "Prose, kept.",
    "<!-- bench:a:start -->",
    "old a",
    "<!-- bench:a:end -->",
    "More prose.",
    "<!-- bench:b:start -->",
    "old b",
    "<!-- bench:b:end -->",
    "",
  ].join("\n");

  it("replace what is between a marker pair and keep every other line as it is", () => {
    const { text: filled, unplaced } = fillMarkers(text, { a: "| new | a |", c: "nowhere" });
    expect(filled).toBe(
      [
        "# Title",
        "Prose, kept.",
        "<!-- bench:a:start -->",
        "",
        "| new | a |",
        "",
        "<!-- bench:a:end -->",
        "More prose.",
        "<!-- bench:b:start -->",
        "",
        "Not measured in this run.",
        "",
        "<!-- bench:b:end -->",
        "",
      ].join("\n"),
    );
    expect(unplaced).toEqual(["c"]);
    // Filled again with the same blocks, the text does not change.
    expect(fillMarkers(filled, { a: "| new | a |" }).text).toBe(filled);
  });

  it("refuse a start without its end, an end without its start, and nested pairs", () => {
    expect(() => fillMarkers("<!-- bench:a:start -->\nx\n", {})).toThrow(/bench:a:start has no end/);
    expect(() => fillMarkers("x\n<!-- bench:a:end -->\n", {})).toThrow(
      /line 2: bench:a:end without its start/,
    );
    expect(() => fillMarkers("<!-- bench:a:start -->\n<!-- bench:b:start -->\n", {})).toThrow(
      /inside bench:a/,
    );
  });

  it("BENCHMARKS.md has a marker pair for every block of a full run, and filling it keeps its prose", () => {
    const file = join(fileURLToPath(import.meta.url), "../../../BENCHMARKS.md");
    const report = readFileSync(file, "utf8");
    const blocks = reportBlocks(full, {
      scaling: "BENCHMARKS-scaling.svg",
      latency: "BENCHMARKS-latency.svg",
    });
    const { text, unplaced } = fillMarkers(report, blocks);
    expect(unplaced).toEqual([]);
    const prose = (t: string) => fillMarkers(t, {}).text;
    expect(prose(text)).toBe(prose(report));
    expect(text).not.toContain("Not measured in this run.");
  });
});
