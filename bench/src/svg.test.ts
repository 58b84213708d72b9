import { describe, expect, it } from "vitest";
import { statsOf } from "./harness.js";
import type { BenchResults, Group, Stats } from "./results.js";
import { ecdf, escapeXml, latencyChart, logScale, logTicks, scalingChart, tickLabel } from "./svg.js";

function series(skills: number, times: Readonly<Record<string, number>>): Group {
  const stats: Stats[] = Object.entries(times).map(([id, ms]) =>
    statsOf({ id }, [{ ms, maxRssKB: 1024, found: skills }]),
  );
  return { stats, facts: { skills } };
}

/** A run with these groups (the charts read nothing else). */
const run = (groups: Record<string, Group>) => ({ groups }) as unknown as BenchResults;

/** Every element opened is closed, in order: the SVG is well-formed as far as tags go. */
function balanced(svg: string): boolean {
  const stack: string[] = [];
  for (const m of svg.matchAll(/<(\/?)([a-z]+)[^>]*?(\/?)>/g)) {
    const [, closing, name, selfClosing] = m;
    if (selfClosing) continue;
    if (closing) {
      if (stack.pop() !== name) return false;
    } else stack.push(name as string);
  }
  return stack.length === 0;
}

/** The points of the `<path>` drawn for the series labelled `label`, as [x, y] pairs. */
function pathOf(svg: string, label: string): number[][] {
  const m = new RegExp(`data-label="${label}" d="([^"]+)"`).exec(svg);
  if (!m) throw new Error(`no path for ${label}`);
  return [...(m[1] as string).matchAll(/[ML](-?[\d.]+) (-?[\d.]+)/g)].map((p) => [
    Number(p[1]),
    Number(p[2]),
  ]);
}

describe("log scales", () => {
  it("maps each decade to the same distance", () => {
    const x = logScale(1, 1000, 0, 300);
    expect(x(1)).toBe(0);
    expect(x(10)).toBeCloseTo(100);
    expect(x(100)).toBeCloseTo(200);
    expect(x(1000)).toBeCloseTo(300);
    expect(() => logScale(0, 10, 0, 1)).toThrow(/0 < min < max/);
  });

  it("ticks at 1, 2 and 5 times powers of ten inside the domain, powers of ten major", () => {
    expect(logTicks(0.03, 0.6)).toEqual([
      { value: 0.05, major: false },
      { value: 0.1, major: true },
      { value: 0.2, major: false },
      { value: 0.5, major: false },
    ]);
    expect([0.05, 2, 1000].map(tickLabel)).toEqual(["0.05", "2", "1,000"]);
  });
});

describe("the scaling chart", () => {
  const local = {
    "load-XS": series(100, { "sync-floor": 10, ours: 15 }),
    "load-S": series(1000, { "sync-floor": 80, ours: 150 }),
    "load-L": series(10_000, { "sync-floor": 800, ours: 1000 }),
  };

  it("draws one line per approach through its cost per skill, a higher cost higher up", () => {
    const svg = scalingChart(run(local)) ?? "";
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(balanced(svg)).toBe(true);
    const ours = pathOf(svg, "ours");
    const floor = pathOf(svg, "synchronous floor");
    expect(ours).toHaveLength(3);
    // x grows with the size, evenly on a log scale.
    expect((ours[1]?.[0] ?? 0) - (ours[0]?.[0] ?? 0)).toBeCloseTo(
      (ours[2]?.[0] ?? 0) - (ours[1]?.[0] ?? 0),
      0,
    );
    // ours costs more per skill than the floor at every size: nearer the top (smaller y).
    for (const [i, p] of ours.entries()) expect(p[1]).toBeLessThan(floor[i]?.[1] ?? Number.NEGATIVE_INFINITY);
    // 0.15 → 0.15 → 0.1 ms per skill: ours does not rise as the size grows.
    expect(ours[2]?.[1]).toBeGreaterThan(ours[1]?.[1] ?? 0);
    expect(svg).toContain(">1,000</text>");
    expect(scalingChart(run({}))).toBeUndefined();
  });

  it("adds the target as a dashed line at the floor times each size's limit of the targets table", () => {
    const svg = scalingChart(run(local)) ?? "";
    const target = pathOf(svg, "target for ours \\(floor × limit\\)");
    const ours = pathOf(svg, "ours");
    expect(target).toHaveLength(3);
    // XS: 10 ms × 1.5 = 15 ms, exactly ours.
    expect(target[0]?.[1]).toBeCloseTo(ours[0]?.[1] ?? 0, 0);
    expect(svg).toMatch(
      /data-label="target for ours[^"]*" d="[^"]+" fill="none" stroke="#[0-9A-F]+" stroke-width="2" stroke-dasharray/,
    );
  });

  it("draws the warm start and its target, crawl + stat times the limit, and leaves out the changed-file run", () => {
    const warm = {
      "load-XS": series(100, { "crawl-stat": 5, warm: 7, "warm-changed": 9 }),
      "load-S": series(1000, { "crawl-stat": 50, warm: 65, "warm-changed": 70 }),
    };
    const svg = scalingChart(run(warm)) ?? "";
    expect(balanced(svg)).toBe(true);
    expect(pathOf(svg, "ours, warm start")).toHaveLength(2);
    expect(pathOf(svg, "fdir crawl \\+ stat")).toHaveLength(2);
    expect(svg).not.toContain("warm-changed");
    const target = pathOf(svg, "target for warm \\(stat × limit\\)");
    const line = pathOf(svg, "ours, warm start");
    // S: 50 ms × 1.3 = 65 ms, exactly the warm start; XS: 5 + 3 = 8 ms, above its 7 ms (smaller y).
    expect(target[1]?.[1]).toBeCloseTo(line[1]?.[1] ?? 0, 0);
    expect(target[0]?.[1]).toBeLessThan(line[0]?.[1] ?? 0);
    // Dashed, in the warm start's colour.
    const colour = /data-label="ours, warm start" d="[^"]+" fill="none" stroke="(#[0-9A-F]+)"/.exec(svg)?.[1];
    expect(svg).toMatch(
      new RegExp(
        `data-label="target for warm[^"]*" d="[^"]+" fill="none" stroke="${colour}" stroke-width="2" stroke-dasharray`,
      ),
    );
  });

  it("leaves out an approach that found the wrong skills and escapes labels", () => {
    const bad = series(100, { "a<b": 5 });
    const broken = { ...bad, stats: [{ ...(bad.stats[0] as Stats), problem: "found 3" }] };
    const svg = scalingChart(run({ "load-XS": broken, "load-S": series(1000, { "a<b": 50 }) })) ?? "";
    expect(pathOf(svg, "a&#60;b")).toHaveLength(1);
    expect(escapeXml(`<"&'>`)).toBe("&#60;&#34;&#38;&#39;&#62;");
  });
});

describe("the latency chart", () => {
  const change = run({
    "changes-L": {
      stats: [],
      samples: { update: [4, 1, 3, 2], reload: [1000, 1200], event: [110, 120, Number.NaN] },
      facts: { skills: 10_000, debounceMs: 100 },
    },
  });

  it("turns samples into a cumulative step curve, sorted, ignoring values that are not finite", () => {
    expect(ecdf([4, 1, 3, 2])).toEqual([
      [1, 0.25],
      [2, 0.5],
      [3, 0.75],
      [4, 1],
    ]);
    expect(ecdf([Number.NaN, 5])).toEqual([[5, 1]]);
  });

  it("draws update, end-to-end and reload curves and dashed lines at the targets and the debounce", () => {
    const svg = latencyChart(change) ?? "";
    expect(balanced(svg)).toBe(true);
    expect(svg).toContain("One changed SKILL.md among 10,000");
    expect(svg).toContain('data-label="service.update (4)"');
    expect(svg).toContain('data-label="write → skill.changed (3)"');
    expect(svg).toContain('data-label="full reload (2)"');
    for (const label of ["update target 20 ms", "debounce 100 ms", "event target 150 ms"])
      expect(svg).toContain(label);
    // The update curve climbs from 0 % to 100 %: its last point is the top of the plot.
    const d = /data-label="service.update \(4\)" d="([^"]+)"/.exec(svg)?.[1] ?? "";
    expect(d.startsWith("M")).toBe(true);
    expect(d.match(/V/g)).toHaveLength(4);
    expect(latencyChart(run({}))).toBeUndefined();
  });
});
