import { describe, expect, it } from "vitest";
import { distribution, quantile } from "./format.js";
import { type RunRecord, statsOf } from "./harness.js";
import type { BenchResults, Group, Stats } from "./results.js";
import { checkTargets, evaluateTargets, TARGETS, type TargetRow } from "./targets.js";

function stats(id: string, ms: number, rssMB = 60, extra: Partial<RunRecord> = {}): Stats {
  const records = [0.9, 1, 1.1].map((f) => ({ ms: ms * f, maxRssKB: rssMB * 1024, found: 100, ...extra }));
  return statsOf({ id, check: (r) => (r.found === 100 ? undefined : `found ${r.found}`) }, records);
}

const group = (...all: Stats[]): Group => ({ stats: all });

function load(oursMs: number, floorMs: number, oursRss = 60): Group {
  return group(stats("sync-floor", floorMs, 60), stats("ours", oursMs, oursRss));
}

function changes(update: number[], event: number[], lost = 0): Group {
  return {
    stats: [],
    samples: { update, reload: [900, 1000, 1100], event, lost: [lost] },
    facts: { debounceMs: 100 },
  };
}

function run(groups: Record<string, Group>, command = "pnpm bench"): BenchResults {
  const machine = {
    cpu: "x",
    cores: 2,
    memGiB: 1,
    node: "v20",
    platform: "linux",
    date: "2025-01-01",
    loadStart: 0,
    loadEnd: 0,
  };
  return { command, machine, runs: 3, warmup: 1, seed: 1, delayMs: 20, durationMs: 1, groups };
}

function row(rows: readonly TargetRow[], id: string): TargetRow {
  const found = rows.find((r) => r.id === id);
  if (!found) throw new Error(`no row ${id}`);
  return found;
}

describe("the targets table", () => {
  it("has one row per target, in the order the targets are declared", () => {
    expect(TARGETS.map((t) => t.id)).toEqual([
      "load-XS",
      "load-S",
      "load-L",
      "warm-XS",
      "warm-S",
      "warm-L",
      "warm-changed-L",
      "rss-L",
      "update-ms",
      "update-vs-reload",
      "event-ms",
      "startup",
      "startup-vercel",
      "list-table-S",
      "list-table-2k",
      "pull-cold",
      "pull-warm",
      "add",
      "doctor",
      "mcp-load",
      "mcp-read",
      "mcp-http",
      "mcp-http-idle",
      "search-build",
      "search-build-summaries",
      "search-replace",
      "search-query",
      "tools-build",
      "tools-stable",
      "search-recall",
    ]);
  });

  it("compares ours with the synchronous floor at each size: at the limit is met, above is missed", () => {
    const rows = evaluateTargets(
      run(
        { "load-XS": load(15, 10), "load-S": load(141, 100), "load-L": load(130, 100, 61) },
        "pnpm bench --size L",
      ),
    );
    expect(row(rows, "load-XS")).toMatchObject({
      verdict: "met",
      value: 1.5,
      measured: "1.50× (15.0 / 10.0 ms)",
    });
    expect(row(rows, "load-S")).toMatchObject({
      verdict: "missed",
      measured: expect.stringMatching(/^1\.41×/),
    });
    expect(row(rows, "load-L").verdict).toBe("met");
    expect(row(rows, "rss-L")).toMatchObject({ verdict: "missed", measured: "1.02× (61.0 / 60.0 MB)" });
  });

  it("compares the warm start with crawl + stat: within 3 ms at 100 skills, 1.3× at 1,000 and 10,000", () => {
    const warm = (statMs: number, warmMs: number, changedMs?: number) =>
      group(
        stats("crawl-stat", statMs),
        stats("warm", warmMs),
        ...(changedMs ? [stats("warm-changed", changedMs)] : []),
      );
    const rows = evaluateTargets(
      run(
        { "load-XS": warm(5, 8), "load-S": warm(50, 65.5), "load-L": warm(500, 600, 660) },
        "pnpm bench --size L",
      ),
    );
    expect(row(rows, "warm-XS")).toMatchObject({ verdict: "met", value: 3, target: "≤ crawl + stat + 3 ms" });
    expect(row(rows, "warm-XS").measured).toBe("+3.00 ms (8.00 / 5.00 ms, 1.60×)");
    expect(row(rows, "warm-S")).toMatchObject({ verdict: "missed", measured: "1.31× (65.5 / 50.0 ms)" });
    expect(row(rows, "warm-L")).toMatchObject({ verdict: "met", value: 1.2 });
    expect(row(rows, "warm-changed-L")).toMatchObject({ verdict: "met", measured: "1.10× (660 / 600 ms)" });

    const slow = evaluateTargets(run({ "load-XS": warm(5, 8.1), "load-L": warm(500, 600, 661) }));
    expect(row(slow, "warm-XS").verdict).toBe("missed");
    expect(row(slow, "warm-changed-L").verdict).toBe("missed");
    expect(row(slow, "warm-S").measured).toBe("not measured: not in this run's `--only`");
  });

  it("never counts a warm start that read what the cache should have answered", () => {
    const warm = statsOf({ id: "warm", check: () => "the head cache missed 3" }, [
      { ms: 55, maxRssKB: 1, found: 100 },
    ]);
    const r = row(evaluateTargets(run({ "load-S": group(stats("crawl-stat", 50), warm) })), "warm-S");
    expect(r).toMatchObject({ verdict: "not measured" });
    expect(r.measured).toContain("the head cache missed 3");
  });

  it("says a size that was not run is not measured, and why", () => {
    const rows = evaluateTargets(run({ "load-XS": load(10, 10), "load-S": load(10, 10) }));
    for (const id of [
      "load-L",
      "warm-L",
      "warm-changed-L",
      "rss-L",
      "update-ms",
      "update-vs-reload",
      "event-ms",
    ]) {
      expect(row(rows, id)).toMatchObject({
        verdict: "not measured",
        measured: "not measured: needs `--size L`",
      });
      expect(row(rows, id).value).toBeUndefined();
    }
  });

  it("never counts a run that found the wrong skills as a measurement", () => {
    const r = row(
      evaluateTargets(
        run({ "load-XS": group(stats("sync-floor", 10), stats("ours", 5, 60, { found: 99 })) }),
      ),
      "load-XS",
    );
    expect(r.verdict).toBe("not measured");
    expect(r.measured).toContain("found 99");
  });

  it("checks the update median in milliseconds and as a share of the full reload", () => {
    const fast = evaluateTargets(run({ "changes-L": changes([10, 20, 30], [120, 130, 140]) }));
    expect(row(fast, "update-ms")).toMatchObject({ verdict: "met", value: 20 });
    expect(row(fast, "update-vs-reload")).toMatchObject({
      verdict: "met",
      measured: "1/50 (20.0 / 1,000 ms)",
    });
    expect(row(fast, "event-ms")).toMatchObject({
      verdict: "met",
      value: 130,
      measured: "130 ms with a 100 ms debounce (p90 138 ms)",
    });

    const slow = evaluateTargets(run({ "changes-L": changes([30, 40, 50], [140, 151, 160]) }));
    expect(row(slow, "update-ms").verdict).toBe("missed");
    expect(row(slow, "update-vs-reload").verdict).toBe("missed");
    expect(row(slow, "event-ms").verdict).toBe("missed");
  });

  it("misses the end-to-end target when an edit never produced skill.changed", () => {
    const rows = evaluateTargets(run({ "changes-L": changes([1], [110, 110], 1) }));
    expect(row(rows, "event-ms")).toMatchObject({
      verdict: "missed",
      measured: expect.stringContaining("1 edits lost"),
    });
    const none = evaluateTargets(run({ "changes-L": changes([1], [], 20) }));
    expect(row(none, "event-ms").verdict).toBe("not measured");
  });

  it("compares skill list with Vercel's skills list: faster is met, as fast or slower is missed", () => {
    const facts = { skills: 100, skillsVersion: "1.7.4", peerNode: "v22.23.5", listed: 21 };
    const startup = (vercel: Stats) => ({
      stats: [stats("cli", 90), stats("node", 45), vercel, stats("cli22", 70)],
      facts,
    });
    expect(
      row(evaluateTargets(run({ startup: startup(stats("vercel", 120)) })), "startup-vercel"),
    ).toMatchObject({
      verdict: "met",
      value: 0.75,
      measured: "0.75× (90.0 / 120 ms)",
    });
    expect(
      row(evaluateTargets(run({ startup: startup(stats("vercel", 90)) })), "startup-vercel").verdict,
    ).toBe("missed");
    const missing = { ...group(stats("cli", 90), stats("node", 45)), missing: { vercel: "npm failed" } };
    expect(row(evaluateTargets(run({ startup: missing })), "startup-vercel")).toMatchObject({
      verdict: "not measured",
      measured: "not measured: npm failed",
    });
    const wrong = startup(stats("vercel", 120, 60, { found: 3 }));
    expect(row(evaluateTargets(run({ startup: wrong })), "startup-vercel").verdict).toBe("not measured");
  });

  it("reads start-up, pulls and doctor from their groups, or says why they were not measured", () => {
    const rows = evaluateTargets(
      run({
        startup: group(stats("cli", 90), stats("node", 45)),
        pulls: { stats: [], unavailable: "no index v0.2 yet" },
      }),
    );
    expect(row(rows, "startup")).toMatchObject({ verdict: "met", value: 2 });
    const slow = evaluateTargets(run({ startup: group(stats("cli", 99), stats("node", 45)) }));
    expect(row(slow, "startup")).toMatchObject({ verdict: "missed", measured: "2.20× (99.0 / 45.0 ms)" });
    expect(row(rows, "startup-vercel").measured).toBe("not measured: no vercel in this run");
    expect(row(rows, "pull-cold")).toMatchObject({
      verdict: "not measured",
      measured: "not measured: no index v0.2 yet",
    });
    expect(row(rows, "doctor").measured).toBe("not measured: not in this run's `--only`");

    const server = (requests: number) => ({
      server: { requests, notModified: 0, bodyBytes: 10 },
    });
    const pulls = evaluateTargets(
      run({
        pulls: group(
          stats("v1-cold", 9000, 60, server(2001)),
          stats("v2-cold", 3000, 60, server(501)),
          stats("v2-warm", 30, 60, server(1)),
        ),
        doctor: group(stats("doctor", 400), stats("ours", 100)),
      }),
    );
    expect(row(pulls, "pull-cold")).toMatchObject({ verdict: "met", value: 3 });
    expect(row(pulls, "pull-warm")).toMatchObject({ verdict: "met", measured: "1 request (max of runs)" });
    expect(row(pulls, "doctor")).toMatchObject({ verdict: "missed", value: 4 });
  });

  it("compares `skill add` of a local pack with copying its folders, or says why it was not measured", () => {
    const add = (addMs: number, found = 100) => group(stats("add", addMs, 60, { found }), stats("copy", 100));
    expect(row(evaluateTargets(run({ add: add(300) })), "add")).toMatchObject({
      verdict: "met",
      value: 3,
      measured: "3.00× (300 / 100 ms)",
    });
    expect(row(evaluateTargets(run({ add: add(310) })), "add")).toMatchObject({ verdict: "missed" });
    expect(row(evaluateTargets(run({ add: add(200, 49) })), "add")).toMatchObject({
      verdict: "not measured",
      measured: "not measured: add did not find the expected result (found 49)",
    });
    const unbuilt = evaluateTargets(run({ add: { stats: [], unavailable: "the CLI is not built" } }));
    expect(row(unbuilt, "add")).toMatchObject({
      verdict: "not measured",
      measured: "not measured: the CLI is not built",
    });
    expect(row(evaluateTargets(run({})), "add").measured).toBe("not measured: not in this run's `--only`");
  });

  it("compares the load over MCP with the load from disk, and times one read", () => {
    const mcp = (mcpMs: number, read: number[]) => ({
      ...group(stats("mcp", mcpMs), stats("ours", 100)),
      samples: { read },
    });
    const met = evaluateTargets(run({ mcp: mcp(200, [1, 2, 9]) }));
    expect(row(met, "mcp-load")).toMatchObject({
      verdict: "met",
      value: 2,
      measured: "2.00× (200 / 100 ms)",
    });
    expect(row(met, "mcp-read")).toMatchObject({ verdict: "met", value: 2 });
    const missed = evaluateTargets(run({ mcp: mcp(201, [6, 5.5]) }));
    expect(row(missed, "mcp-load").verdict).toBe("missed");
    expect(row(missed, "mcp-read").verdict).toBe("missed");
    expect(row(evaluateTargets(run({ mcp: mcp(150, []) })), "mcp-read").measured).toBe(
      "not measured: no samples",
    );
    const gone = evaluateTargets(run({ mcp: { stats: [], unavailable: "cli.js is not built" } }));
    expect(row(gone, "mcp-load").measured).toBe("not measured: cli.js is not built");
  });
});

describe("the MCP HTTP rows", () => {
  const http = (rps: Record<string, number>, idleHeapKB = 8) => ({
    stats: Object.entries(rps).map(([id, r]) => stats(id, 2000, 80, { server: { rps: r, idleHeapKB } })),
  });

  it("compare requests/s with the SDK's server and say the defaults' ratio beside, and weigh an idle session", () => {
    const met = evaluateTargets(run({ "mcp-http": http({ ours: 460, "ours-default": 232, sdk: 400 }) }));
    expect(row(met, "mcp-http")).toMatchObject({
      verdict: "met",
      value: 1.15,
      measured: "1.15× (460 / 400 requests/s; defaults 0.58×)",
    });
    expect(row(met, "mcp-http-idle")).toMatchObject({
      verdict: "met",
      measured: "8.00 KB of heap per session",
    });
    const missed = evaluateTargets(
      run({ "mcp-http": http({ ours: 390, "ours-default": 230, sdk: 400 }, 600) }),
    );
    expect(row(missed, "mcp-http").verdict).toBe("missed");
    expect(row(missed, "mcp-http-idle").verdict).toBe("missed");
    const gone = evaluateTargets(run({ "mcp-http": http({ ours: 460, "ours-default": 230 }) }));
    expect(row(gone, "mcp-http").measured).toBe("not measured: no sdk in this run");
  });
});

describe("the search rows", () => {
  const search = (samples: Record<string, number[]> = {}, problem?: string): Group => ({
    stats: [],
    samples: {
      coldBuild: [140, 150, 160],
      coldBuildSummaries: [180, 190, 200],
      replace: [1, 2, 3],
      query: [0.5, 1, 4],
      tools: [110, 120],
      toolsBaseline: [100, 100],
      requests: [212],
      definitionBytes: [0],
      definitionBytesBaseline: [48_000],
      ...{ "ours@5": [0.9], "substring@5": [0.5], "minisearch@5": [0.8] },
      ...samples,
    },
    ...(problem ? { problem } : {}),
  });

  it("reads the medians and the recall of ours against both baselines", () => {
    const rows = evaluateTargets(run({ search: search() }));
    expect(row(rows, "search-build")).toMatchObject({ verdict: "met", value: 150 });
    expect(row(rows, "search-build-summaries")).toMatchObject({ verdict: "met", value: 190 });
    expect(row(rows, "search-replace")).toMatchObject({ verdict: "met", value: 2 });
    expect(row(rows, "search-query")).toMatchObject({ verdict: "met", value: 1 });
    expect(row(rows, "tools-build")).toMatchObject({
      verdict: "met",
      measured: "1.15× (115 ms against 100 ms)",
    });
    expect(row(rows, "tools-stable")).toMatchObject({
      verdict: "met",
      value: 0,
      measured: "0 bytes changed (ranked by the session's loads: 48,000 bytes)",
    });
    expect(row(rows, "search-recall")).toMatchObject({
      verdict: "met",
      value: 0.9,
      measured: "90.0% (substring 50.0%, MiniSearch 80.0%; 212 requests)",
    });
  });

  it("misses recall below the floor or not above a baseline, and slow medians", () => {
    const level = evaluateTargets(
      run({
        search: search({
          coldBuild: [151],
          coldBuildSummaries: [201],
          replace: [6],
          query: [2.5],
          "minisearch@5": [0.9],
        }),
      }),
    );
    const moved = evaluateTargets(run({ search: search({ definitionBytes: [9_000] }) }));
    expect(row(moved, "tools-stable").verdict).toBe("missed");
    for (const id of [
      "search-build",
      "search-build-summaries",
      "search-replace",
      "search-query",
      "search-recall",
    ]) {
      expect(row(level, id).verdict, id).toBe("missed");
    }
  });

  it("says why search was not measured", () => {
    expect(row(evaluateTargets(run({})), "search-query").measured).toBe(
      "not measured: not in this run's `--only`",
    );
    const failed = evaluateTargets(run({ search: search({}, "the search child failed: boom") }));
    expect(row(failed, "search-recall")).toMatchObject({
      verdict: "not measured",
      measured: "not measured: the search child failed: boom",
    });
  });
});

describe("--check", () => {
  const rows = (...verdicts: TargetRow["verdict"][]): TargetRow[] =>
    verdicts.map((verdict, i) => ({
      id: `t${i}`,
      what: `target ${i}`,
      target: "≤ 1×",
      measured: "x",
      verdict,
    }));

  it("exits 1 when any target is missed", () => {
    const result = checkTargets(rows("met", "missed", "not measured"));
    expect(result.code).toBe(1);
    expect(result.lines.at(-1)).toBe("FAIL: 1 met, 1 missed, 1 not measured");
    expect(result.lines[1]).toMatch(/^missed\s+target 1/);
  });

  it("exits 0 when nothing is missed, and never counts a target not measured as met", () => {
    const result = checkTargets(rows("met", "not measured"));
    expect(result.code).toBe(0);
    expect(result.lines.at(-1)).toBe("PASS: 1 met, 0 missed, 1 not measured");
  });
});

describe("distributions", () => {
  it("interpolates quantiles and ignores values that are not finite", () => {
    expect(quantile([1, 2, 3, 4], 0.5)).toBe(2.5);
    expect(quantile([10, 0, Number.NaN, 5], 0.5)).toBe(5);
    expect(quantile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], 0.9)).toBe(10);
    expect(quantile([], 0.5)).toBeNaN();
    expect(distribution([3, 1, 2])).toEqual({ n: 3, median: 2, p10: 1.2, p90: 2.8, min: 1, max: 3 });
  });
});
