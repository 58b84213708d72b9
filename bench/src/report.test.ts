import { describe, expect, it } from "vitest";
import type { RunRecord } from "./harness.js";
import { type ApproachStats, approachStats, type BenchResults, renderReport, targetRows } from "./report.js";

function runs(ms: number, rssMB: number, extra: Partial<RunRecord> = {}): RunRecord[] {
  return [0.9, 1, 1.1].map((f) => ({ ms: ms * f, maxRssKB: rssMB * 1024, found: 1000, ...extra }));
}

function stats(id: string, ms: number, rssMB: number, extra: Partial<RunRecord> = {}): ApproachStats {
  return approachStats(id, id, runs(ms, rssMB, extra), () => undefined);
}

function results(oursMs: number, oursL?: number): BenchResults {
  const series = (size: string, skills: number, ours: number) => ({
    size,
    skills,
    files: skills * 20,
    decoys: skills / 20,
    approaches: [stats("floor", 100, 60), stats("opencode-style", 500, 120), stats("ours", ours, 70)],
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

  it("marks each target met or missed from the same run's ratios, at the largest size", () => {
    const fast = targetRows(results(150));
    expect(fast.slice(0, 3).map((r) => [r.measured, r.result])).toEqual([
      ["1.50×", "met"],
      ["0.30×", "met"],
      ["1.17×", "met"],
    ]);
    expect(fast[3]?.measured).toContain("needs `--size L`");

    const slow = targetRows(results(150, 2500));
    expect(slow[0]).toMatchObject({ target: expect.stringContaining("(at L)"), result: "**missed**" });
    expect(slow[1]?.result).toBe("**missed**");
    expect(slow[3]).toMatchObject({ measured: expect.stringContaining("1.67×"), result: "**missed**" });
  });

  it("renders the machine line, the notes, the targets and one table per size", () => {
    const text = renderReport(results(150, 1400));
    expect(text).toContain(
      "**Machine:** Test CPU, 2 cores, 8.0 GiB RAM, Node v20.19.0, linux x64, 2025-01-01",
    );
    expect(text).toContain("> A shared machine.");
    expect(text).toContain("### S: 1,000 skills, 20,000 files (50 decoy SKILL.md files in node_modules)");
    expect(text).toContain("### L: 10,000 skills");
    expect(text).toContain("| 10,000 | 1,400 | 0.140 | 0.010 | 70.0 |");
    expect(text).not.toContain("## Remote");
  });
});
