import { readFileSync } from "node:fs";

/** The parts of a V8 `.cpuprofile` (as written by `node --cpu-prof`) that are summarized. */
interface CpuProfile {
  readonly nodes: readonly {
    readonly id: number;
    readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  }[];
  readonly samples?: readonly number[];
  readonly timeDeltas?: readonly number[];
}

export interface ProfileLine {
  /** A function (`name (file:line)`) or a package. */
  readonly name: string;
  readonly selfMs: number;
  /** Share of all samples, 0–1. */
  readonly share: number;
}

export interface ProfileSummary {
  readonly totalMs: number;
  readonly packages: readonly ProfileLine[];
  readonly functions: readonly ProfileLine[];
}

/** Who owns a script: a workspace package, an npm package, Node itself, or V8's own buckets. */
export function ownerOf(url: string, functionName: string): string {
  if (url === "") return functionName.startsWith("(") ? functionName : "(native)";
  if (url.startsWith("node:")) return "node internals";
  const workspace = /\/packages\/([^/]+)\/(?:dist|src)\//.exec(url);
  if (workspace) return `@skill/${workspace[1]}`;
  const pnpm = /\/node_modules\/\.pnpm\/(@?[^@/]+(?:\+[^@/]+)?)@/.exec(url);
  if (pnpm) return (pnpm[1] as string).replace("+", "/");
  const npm = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (npm) return npm[1] as string;
  if (url.includes("/bench/")) return "bench";
  return url.slice(url.lastIndexOf("/") + 1);
}

function shortUrl(url: string): string {
  const marker = url.lastIndexOf("/node_modules/");
  const path = marker === -1 ? url.replace(/^file:\/\//, "") : url.slice(marker + "/node_modules/".length);
  const parts = path.split("/");
  return parts.slice(-3).join("/");
}

function top(totals: Map<string, number>, totalMs: number, count: number): ProfileLine[] {
  return [...totals]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, selfMs]) => ({ name, selfMs, share: totalMs > 0 ? selfMs / totalMs : 0 }));
}

/** Self time by package and by function in a `.cpuprofile` file. */
export function summarizeProfile(file: string, count = 12): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
  const functions = new Map<string, number>();
  const packages = new Map<string, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  let totalMs = 0;
  for (let i = 0; i < samples.length; i++) {
    const frame = byId.get(samples[i] as number);
    if (!frame) continue;
    const ms = (deltas[i] ?? 0) / 1000;
    totalMs += ms;
    const owner = ownerOf(frame.url, frame.functionName);
    const fn = frame.url
      ? `${frame.functionName || "(anonymous)"} (${shortUrl(frame.url)}:${frame.lineNumber + 1})`
      : frame.functionName;
    functions.set(fn, (functions.get(fn) ?? 0) + ms);
    packages.set(owner, (packages.get(owner) ?? 0) + ms);
  }
  return { totalMs, packages: top(packages, totalMs, count), functions: top(functions, totalMs, count) };
}
