// The report's two charts, as SVG text: cost per skill by tree size (log–log), and the latency
// distributions of one change (cumulative, log time).
import type { BenchResults, Stats } from "./results.js";
import { limitOf, REFERENCE, WARM_REFERENCE } from "./targets.js";

const [WIDTH, HEIGHT] = [720, 400];
/** The plot area; the legend sits right of it. */
const PLOT = { left: 70, right: WIDTH - 250, top: 40, bottom: HEIGHT - 50 } as const;
/** Colour-blind-safe palette (Okabe–Ito), one colour per line in order. */
const PALETTE = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00", "#56B4E9", "#000000"];

export const escapeXml = (text: string) => text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
const n = (value: number) => String(Math.round(value * 10) / 10);

export function logScale(min: number, max: number, from: number, to: number): (value: number) => number {
  if (!(min > 0 && max > min)) throw new Error(`a log scale needs 0 < min < max, found ${min}, ${max}`);
  return (value) => from + (Math.log10(value / min) / Math.log10(max / min)) * (to - from);
}

type Tick = { readonly value: number; readonly major: boolean; readonly label?: string };

/** Ticks of a log axis over `[min, max]`: 1, 2 and 5 times powers of ten; powers of ten are major. */
export function logTicks(min: number, max: number): Tick[] {
  const ticks: Tick[] = [];
  for (let p = Math.floor(Math.log10(min)); p <= Math.ceil(Math.log10(max)); p++)
    for (const m of [1, 2, 5]) ticks.push({ value: m * 10 ** p, major: m === 1 });
  return ticks.filter((t) => t.value >= min * 0.999 && t.value <= max * 1.001);
}

export const tickLabel = (v: number) =>
  v >= 1 ? Math.round(v).toLocaleString("en-US") : String(Number(v.toPrecision(2)));

/** A log domain that holds every value with some room, at least one decade wide. */
function logDomain(values: readonly number[]): [number, number] {
  const positive = values.filter((v) => Number.isFinite(v) && v > 0);
  if (positive.length === 0) return [1, 10];
  const [min, max] = [Math.min(...positive) / 1.4, Math.max(...positive) * 1.4];
  const mid = Math.sqrt(min * max);
  return max / min >= 10 ? [min, max] : [mid / Math.sqrt(10), mid * Math.sqrt(10)];
}

/** A line: markers at its points, a step curve (a distribution) or dashed (a limit); its palette colour. */
interface Line extends Readonly<Partial<Record<"markers" | "step" | "dashed", boolean>>> {
  readonly label: string;
  readonly points: readonly (readonly [number, number])[];
  readonly colour?: number;
}

/** A chart: its scales map values to pixels. */
interface Chart extends Readonly<Record<"x" | "y", (value: number) => number>> {
  readonly title: string;
  readonly labels: readonly [x: string, y: string];
  readonly ticks: readonly [x: readonly Tick[], y: readonly Tick[]];
  readonly lines: readonly Line[];
}

/** An SVG element: its attributes in order (numbers rounded), and its text, escaped, if any. */
function el(name: string, attrs: Readonly<Record<string, string | number>>, text?: string): string {
  const value = (v: string | number) => (typeof v === "number" ? n(v) : escapeXml(v));
  const list = Object.entries(attrs).map(([k, v]) => ` ${k}="${value(v)}"`);
  return `<${name}${list.join("")}${text === undefined ? "/>" : `>${escapeXml(text)}</${name}>`}`;
}

function render({ title, labels, x, y, ticks, lines }: Chart): string {
  const [midX, midY] = [(PLOT.left + PLOT.right) / 2, (PLOT.top + PLOT.bottom) / 2];
  const grid = (t: Tick) => (t.major ? "#cccccc" : "#eeeeee");
  const label = (t: Tick) => t.label ?? tickLabel(t.value);
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" font-family="Helvetica, Arial, sans-serif" font-size="12">`,
    el("title", {}, title),
    el("rect", { width: WIDTH, height: HEIGHT, fill: "#ffffff" }),
    el("text", { x: PLOT.left, y: 22, "font-size": 14, "font-weight": "bold" }, title),
  ];
  for (const t of ticks[0]) {
    const at = x(t.value);
    out.push(el("line", { x1: at, y1: PLOT.top, x2: at, y2: PLOT.bottom, stroke: grid(t) }));
    if (t.label !== undefined || t.major)
      out.push(el("text", { x: at, y: PLOT.bottom + 16, "text-anchor": "middle" }, label(t)));
  }
  for (const t of ticks[1]) {
    const at = y(t.value);
    out.push(el("line", { x1: PLOT.left, y1: at, x2: PLOT.right, y2: at, stroke: grid(t) }));
    const anchor = { "text-anchor": "end", "dominant-baseline": "middle" };
    out.push(el("text", { x: PLOT.left - 6, y: at, ...anchor }, label(t)));
  }
  const [width, height] = [PLOT.right - PLOT.left, PLOT.bottom - PLOT.top];
  out.push(
    el("rect", { x: PLOT.left, y: PLOT.top, width, height, fill: "none", stroke: "#888888" }),
    el("text", { x: midX, y: HEIGHT - 12, "text-anchor": "middle" }, labels[0]),
    el("text", { transform: `translate(16 ${n(midY)}) rotate(-90)`, "text-anchor": "middle" }, labels[1]),
  );
  for (const [i, l] of lines.entries()) {
    const colour = PALETTE[(l.colour ?? i) % PALETTE.length] as string;
    const points = l.points.map(([px, py]) => [n(x(px)), n(y(py))] as const);
    if (points.length === 0) continue;
    const d = points.map(([px, py], at) =>
      at === 0 ? `M${px} ${py}` : l.step ? `H${px} V${py}` : `L${px} ${py}`,
    );
    const stroke = { stroke: colour, "stroke-width": 2, ...(l.dashed ? { "stroke-dasharray": "6 4" } : {}) };
    out.push(el("path", { class: "series", "data-label": l.label, d: d.join(" "), fill: "none", ...stroke }));
    if (l.markers) for (const [cx, cy] of points) out.push(el("circle", { cx, cy, r: 3.5, fill: colour }));
    const ly = PLOT.top + 8 + i * 20;
    out.push(el("line", { x1: PLOT.right + 16, y1: ly, x2: PLOT.right + 40, y2: ly, ...stroke }));
    out.push(el("text", { x: PLOT.right + 46, y: ly, "dominant-baseline": "middle" }, l.label));
  }
  return `${[...out, "</svg>"].join("\n")}\n`;
}

/** Short legend names of the approaches. */
const SHORT: Readonly<Record<string, string>> = {
  ...{ "sync-floor": "synchronous floor", "crawl-stat": "fdir crawl + stat" },
  ...{ ours: "ours", warm: "ours, warm start" },
};

type Limit = (size: string, ms: number) => number;

/** Median milliseconds per skill against skills, one line per approach: flat is linear, falling is a fixed cost spread. */
export function scalingChart(results: BenchResults): string | undefined {
  const local = ["XS", "S", "L"].flatMap((size) => {
    const group = results.groups[`load-${size}`];
    return group ? [{ size, skills: Number(group.facts?.skills), stats: group.stats }] : [];
  });
  if (local.length === 0) return undefined;
  // The run with one SKILL.md changed is left to the tables.
  const all = local.flatMap((s) => s.stats.map((a) => a.id));
  const ids = [...new Set(all)].filter((id) => id !== "warm-changed");
  const perSkill = (id: string, ms: (a: Stats, size: string) => number) =>
    local.flatMap(({ size, skills, stats }) => {
      const a = stats.find((x) => x.id === id);
      const v = a && !a.problem ? ms(a, size) / skills : Number.NaN;
      return Number.isFinite(v) && v > 0 ? [[skills, v] as const] : [];
    });
  const lines: Line[] = ids.map((id) => ({
    label: SHORT[id] ?? id,
    markers: true,
    points: perSkill(id, (a) => a.time.median),
  }));
  // Dashed target lines, in the colour of the approach they bound: the reference's median at each size, limited.
  const target = (label: string, of: string, reference: string, limit: Limit) => {
    const points = perSkill(reference, (a, size) => limit(size, a.time.median));
    if (ids.includes(of)) lines.push({ label, dashed: true, colour: ids.indexOf(of), points });
  };
  target("target for ours (floor × limit)", "ours", REFERENCE, (size, ms) => ms * limitOf(`load-${size}`));
  target("target for warm (stat × limit)", "warm", WARM_REFERENCE, (size, ms) =>
    size === "XS" ? ms + limitOf("warm-XS") : ms * limitOf(`warm-${size}`),
  );
  const sizes = local.map((s) => s.skills);
  const [xMin, xMax] = [Math.min(...sizes) / 1.5, Math.max(...sizes) * 1.5];
  const [yMin, yMax] = logDomain(lines.flatMap((l) => l.points.map((p) => p[1])));
  return render({
    title: "Discover + load: cost per skill by tree size",
    labels: ["skills in the tree (log scale)", "median ms per skill (log scale)"],
    x: logScale(xMin, xMax, PLOT.left, PLOT.right),
    y: logScale(yMin, yMax, PLOT.bottom, PLOT.top),
    ticks: [sizes.map((value) => ({ value, major: true })), logTicks(yMin, yMax)],
    lines,
  });
}

export function ecdf(values: readonly number[]): [number, number][] {
  const sorted = values.filter((v) => Number.isFinite(v) && v > 0).sort((a, b) => a - b);
  return sorted.map((v, i) => [v, (i + 1) / sorted.length]);
}

/** `service.update`, file written → `skill.changed` and the full reload of the largest size, with the targets and the debounce as dashed rules. */
export function latencyChart(results: BenchResults): string | undefined {
  const change = ["L", "S", "XS"]
    .map((s) => results.groups[`changes-${s}`])
    .find((g) => g?.samples?.update?.length);
  if (!change) return undefined;
  const debounceMs = Number(change.facts?.debounceMs);
  const [updateMs, eventMs] = [limitOf("update-ms"), debounceMs + limitOf("event-ms")];
  const { update, event, reload } = change.samples ?? {};
  const curves = [
    ["service.update", update],
    ["write → skill.changed", event],
    ["full reload", reload],
  ] as const;
  // A step curve starts at 0 % just before its first sample.
  const lines: Line[] = curves.map(([label, values = []]) => {
    const points = ecdf(values);
    const start = points[0] ? [[points[0][0], 0] as const] : [];
    return { label: `${label} (${values.length})`, step: true, points: [...start, ...points] };
  });
  const rule = (label: string, ms: number, colour: number) => {
    const points = [0, 1].map((share) => [ms, share] as const);
    lines.push({ label: `${label} ${ms} ms`, dashed: true, colour, points });
  };
  rule("update target", updateMs, 0);
  rule("debounce", debounceMs, 6);
  rule("event target", eventMs, 1);
  const [xMin, xMax] = logDomain([...curves.flatMap(([, v = []]) => v), updateMs, eventMs]);
  const shares = [0, 0.25, 0.5, 0.75, 1].map((v) => ({ value: v, major: true, label: `${v * 100}%` }));
  return render({
    title: `One changed SKILL.md among ${Number(change.facts?.skills).toLocaleString("en-US")}: latency distribution`,
    labels: ["milliseconds (log scale)", "share of edits done within"],
    x: logScale(xMin, xMax, PLOT.left, PLOT.right),
    y: (share) => PLOT.bottom - share * (PLOT.bottom - PLOT.top),
    ticks: [logTicks(xMin, xMax), shares],
    lines,
  });
}
