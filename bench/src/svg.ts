// Charts for BENCHMARKS.md, written as SVG text: log-scaled lines and distribution curves.
import type { ChangeSeries, LocalSeries } from "./report.js";

const WIDTH = 720;
const HEIGHT = 400;
const MARGIN = { top: 40, right: 250, bottom: 50, left: 70 } as const;
const PLOT = {
  left: MARGIN.left,
  right: WIDTH - MARGIN.right,
  top: MARGIN.top,
  bottom: HEIGHT - MARGIN.bottom,
} as const;

/** Colour-blind-safe palette (Okabe–Ito), one colour per series in order. */
const PALETTE = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00", "#56B4E9", "#000000"];

export function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Maps `[min, max]` on a log10 scale to `[from, to]`. */
export function logScale(min: number, max: number, from: number, to: number): (value: number) => number {
  if (!(min > 0 && max > min)) throw new Error(`a log scale needs 0 < min < max, found ${min}, ${max}`);
  const lo = Math.log10(min);
  const span = Math.log10(max) - lo;
  return (value) => from + ((Math.log10(value) - lo) / span) * (to - from);
}

/** Ticks of a log axis over `[min, max]`: 1, 2 and 5 times powers of ten; powers of ten are major. */
export function logTicks(min: number, max: number): { readonly value: number; readonly major: boolean }[] {
  const ticks: { value: number; major: boolean }[] = [];
  for (let p = Math.floor(Math.log10(min)); p <= Math.ceil(Math.log10(max)); p++) {
    for (const m of [1, 2, 5]) {
      const value = m * 10 ** p;
      if (value >= min * 0.999 && value <= max * 1.001) ticks.push({ value, major: m === 1 });
    }
  }
  return ticks;
}

/** A number as an axis label: `0.05`, `2`, `1,000`. */
export function tickLabel(value: number): string {
  if (value >= 1) return Math.round(value).toLocaleString("en-US");
  return String(Number(value.toPrecision(2)));
}

/** A log domain that holds every value with some room, at least one tick wide. */
function logDomain(values: readonly number[]): [number, number] {
  const positive = values.filter((v) => Number.isFinite(v) && v > 0);
  if (positive.length === 0) return [1, 10];
  let min = Math.min(...positive) / 1.4;
  let max = Math.max(...positive) * 1.4;
  if (max / min < 10) {
    const mid = Math.sqrt(min * max);
    min = mid / Math.sqrt(10);
    max = mid * Math.sqrt(10);
  }
  return [min, max];
}

function n(value: number): string {
  return String(Math.round(value * 10) / 10);
}

interface Line {
  readonly label: string;
  readonly points: readonly (readonly [number, number])[];
  /** Draw markers at the points (a line through few points) or not (a curve). */
  readonly markers: boolean;
  readonly step?: boolean;
  /** A dashed line: a limit rather than a measurement. */
  readonly dashed?: boolean;
  /** Colour index in the palette; default: the line's position. */
  readonly colour?: number;
}

interface Rule {
  readonly x: number;
  readonly label: string;
}

interface Chart {
  readonly title: string;
  readonly xLabel: string;
  readonly yLabel: string;
  readonly x: (value: number) => number;
  readonly y: (value: number) => number;
  readonly xTicks: readonly { readonly value: number; readonly major: boolean; readonly label?: string }[];
  readonly yTicks: readonly { readonly value: number; readonly major: boolean; readonly label?: string }[];
  readonly lines: readonly Line[];
  readonly rules?: readonly Rule[];
}

function path(points: readonly (readonly [number, number])[], step: boolean): string {
  const parts: string[] = [];
  points.forEach(([x, y], i) => {
    if (i === 0) parts.push(`M${n(x)} ${n(y)}`);
    else if (step) parts.push(`H${n(x)} V${n(y)}`);
    else parts.push(`L${n(x)} ${n(y)}`);
  });
  return parts.join(" ");
}

function render(chart: Chart): string {
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" font-family="Helvetica, Arial, sans-serif" font-size="12">`,
    `<title>${escapeXml(chart.title)}</title>`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="#ffffff"/>`,
    `<text x="${PLOT.left}" y="22" font-size="14" font-weight="bold">${escapeXml(chart.title)}</text>`,
  ];
  for (const t of chart.xTicks) {
    const x = n(chart.x(t.value));
    out.push(
      `<line x1="${x}" y1="${PLOT.top}" x2="${x}" y2="${PLOT.bottom}" stroke="${t.major ? "#cccccc" : "#eeeeee"}"/>`,
    );
    if (t.label !== undefined || t.major)
      out.push(
        `<text x="${x}" y="${PLOT.bottom + 16}" text-anchor="middle">${escapeXml(t.label ?? tickLabel(t.value))}</text>`,
      );
  }
  for (const t of chart.yTicks) {
    const y = n(chart.y(t.value));
    out.push(
      `<line x1="${PLOT.left}" y1="${y}" x2="${PLOT.right}" y2="${y}" stroke="${t.major ? "#cccccc" : "#eeeeee"}"/>`,
      `<text x="${PLOT.left - 6}" y="${y}" text-anchor="end" dominant-baseline="middle">${escapeXml(t.label ?? tickLabel(t.value))}</text>`,
    );
  }
  out.push(
    `<rect x="${PLOT.left}" y="${PLOT.top}" width="${PLOT.right - PLOT.left}" height="${PLOT.bottom - PLOT.top}" fill="none" stroke="#888888"/>`,
    `<text x="${n((PLOT.left + PLOT.right) / 2)}" y="${HEIGHT - 12}" text-anchor="middle">${escapeXml(chart.xLabel)}</text>`,
    `<text transform="translate(16 ${n((PLOT.top + PLOT.bottom) / 2)}) rotate(-90)" text-anchor="middle">${escapeXml(chart.yLabel)}</text>`,
  );
  const rules = chart.rules ?? [];
  for (const rule of rules) {
    const x = chart.x(rule.x);
    if (!(x >= PLOT.left && x <= PLOT.right)) continue;
    // Labels sit at the bottom of the plot, written upwards beside their rule.
    out.push(
      `<line class="rule" x1="${n(x)}" y1="${PLOT.top}" x2="${n(x)}" y2="${PLOT.bottom}" stroke="#555555" stroke-dasharray="4 3"/>`,
      `<text transform="translate(${n(x - 4)} ${PLOT.bottom - 6}) rotate(-90)" fill="#555555" font-size="11">${escapeXml(rule.label)}</text>`,
    );
  }
  chart.lines.forEach((line, i) => {
    const colour = PALETTE[(line.colour ?? i) % PALETTE.length] as string;
    const points = line.points.map(([px, py]) => [chart.x(px), chart.y(py)] as const);
    if (points.length === 0) return;
    const dash = line.dashed ? ' stroke-dasharray="6 4"' : "";
    out.push(
      `<path class="series" data-label="${escapeXml(line.label)}" d="${path(points, line.step ?? false)}" fill="none" stroke="${colour}" stroke-width="2"${dash}/>`,
    );
    if (line.markers)
      for (const [x, y] of points) out.push(`<circle cx="${n(x)}" cy="${n(y)}" r="3.5" fill="${colour}"/>`);
    const ly = PLOT.top + 8 + i * 20;
    out.push(
      `<line x1="${PLOT.right + 16}" y1="${ly}" x2="${PLOT.right + 40}" y2="${ly}" stroke="${colour}" stroke-width="2"${dash}/>`,
      `<text x="${PLOT.right + 46}" y="${ly}" dominant-baseline="middle">${escapeXml(line.label)}</text>`,
    );
  });
  out.push("</svg>");
  return `${out.join("\n")}\n`;
}

/** Short legend names of the discovery approaches. */
const SHORT: Readonly<Record<string, string>> = {
  "sync-floor": "synchronous floor",
  floor: "line-reader floor",
  crawl: "fdir crawl only",
  "crawl-stat": "fdir crawl + stat",
  "opencode-style": "opencode-style",
  ours: "ours",
  warm: "ours, warm start",
};

/** Approaches of a series left out of the scaling chart (told in the tables instead). */
const NOT_CHARTED: ReadonlySet<string> = new Set([
  "warm-changed",
  "crawl-stat-cache",
  "ours-eager",
  "warm-eager",
]);

/** A dashed target line: `limitMs(size, reference median)` per size, drawn in the colour of `of`. */
export interface ChartTarget {
  readonly label: string;
  /** The approach the target is for (its line's colour). */
  readonly of: string;
  readonly reference: string;
  /** The target time in ms at `size`, given the reference's median there; `undefined` when none. */
  readonly limitMs: (size: string, referenceMs: number) => number | undefined;
}

/**
 * Milliseconds per skill (median run / skills) against the number of skills, both log-scaled,
 * one line per approach: flat is linear, falling means fixed costs spread over more skills.
 */
export function scalingChart(
  local: readonly LocalSeries[],
  target?: { readonly reference: string; readonly limits: Readonly<Record<string, number>> },
  more: readonly ChartTarget[] = [],
): string {
  const ids = [...new Set(local.flatMap((s) => s.approaches.map((a) => a.id)))].filter(
    (id) => !NOT_CHARTED.has(id),
  );
  const lines: Line[] = ids.map((id) => ({
    label: SHORT[id] ?? id,
    markers: true,
    points: local.flatMap((s) => {
      const a = s.approaches.find((x) => x.id === id);
      const perSkill = a ? a.time.median / s.skills : Number.NaN;
      return Number.isFinite(perSkill) && perSkill > 0 && !a?.problem ? [[s.skills, perSkill] as const] : [];
    }),
  }));
  if (target) {
    const oursAt = ids.indexOf("ours");
    lines.push({
      label: "target for ours (floor × limit)",
      markers: false,
      dashed: true,
      colour: oursAt === -1 ? lines.length : oursAt,
      points: local.flatMap((s) => {
        const ref = s.approaches.find((x) => x.id === target.reference);
        const limit = target.limits[s.size];
        const v = ref && limit !== undefined ? (ref.time.median * limit) / s.skills : Number.NaN;
        return Number.isFinite(v) && v > 0 ? [[s.skills, v] as const] : [];
      }),
    });
  }
  for (const t of more) {
    const of = ids.indexOf(t.of);
    if (of === -1) continue;
    lines.push({
      label: t.label,
      markers: false,
      dashed: true,
      colour: of,
      points: local.flatMap((s) => {
        const ref = s.approaches.find((x) => x.id === t.reference);
        const v = ref ? (t.limitMs(s.size, ref.time.median) ?? Number.NaN) / s.skills : Number.NaN;
        return Number.isFinite(v) && v > 0 ? [[s.skills, v] as const] : [];
      }),
    });
  }
  const sizes = local.map((s) => s.skills);
  const [xMin, xMax] =
    sizes.length > 1 ? [Math.min(...sizes) / 1.5, Math.max(...sizes) * 1.5] : logDomain(sizes);
  const [yMin, yMax] = logDomain(lines.flatMap((l) => l.points.map((p) => p[1])));
  return render({
    title: "Discover + load: cost per skill by tree size",
    xLabel: "skills in the tree (log scale)",
    yLabel: "median ms per skill (log scale)",
    x: logScale(xMin, xMax, PLOT.left, PLOT.right),
    y: logScale(yMin, yMax, PLOT.bottom, PLOT.top),
    xTicks: sizes.map((value) => ({ value, major: true })),
    yTicks: logTicks(yMin, yMax),
    lines,
  });
}

/** Points of an empirical cumulative distribution: (value, share of samples ≤ value), as a step curve. */
export function ecdf(values: readonly number[]): [number, number][] {
  const sorted = values.filter((v) => Number.isFinite(v) && v > 0).sort((a, b) => a - b);
  return sorted.map((v, i) => [v, (i + 1) / sorted.length]);
}

/**
 * The latency distributions of one change series as cumulative curves on a log time axis:
 * `service.update` of one file, file written → `skill.changed` through the watcher, and the
 * full reload, with the targets as dashed rules.
 */
export function latencyChart(change: ChangeSeries, limits: { updateMs: number; eventMs: number }): string {
  const curves: Line[] = [
    {
      label: `service.update (${change.update.length})`,
      points: ecdf(change.update),
      markers: false,
      step: true,
    },
    {
      label: `write → skill.changed (${change.event.length})`,
      points: ecdf(change.event),
      markers: false,
      step: true,
    },
    {
      label: `full reload (${change.reload.length})`,
      points: ecdf(change.reload),
      markers: false,
      step: true,
    },
  ];
  // A step curve starts at 0 % just before its first sample.
  const lines = curves.map((c) => {
    const first = c.points[0];
    return first ? { ...c, points: [[first[0], 0] as const, ...c.points] } : c;
  });
  const values = [...change.update, ...change.event, ...change.reload, limits.updateMs, limits.eventMs];
  const [xMin, xMax] = logDomain(values);
  const y = (share: number) => PLOT.bottom - share * (PLOT.bottom - PLOT.top);
  return render({
    title: `One changed SKILL.md among ${change.skills.toLocaleString("en-US")}: latency distribution`,
    xLabel: "milliseconds (log scale)",
    yLabel: "share of edits done within",
    x: logScale(xMin, xMax, PLOT.left, PLOT.right),
    y,
    xTicks: logTicks(xMin, xMax),
    yTicks: [0, 0.25, 0.5, 0.75, 1].map((v) => ({ value: v, major: true, label: `${v * 100}%` })),
    lines,
    rules: [
      { x: limits.updateMs, label: `update target ${limits.updateMs} ms` },
      { x: change.debounceMs, label: `debounce ${change.debounceMs} ms` },
      { x: limits.eventMs, label: `event target ${limits.eventMs} ms` },
    ],
  });
}
