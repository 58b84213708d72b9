import { readFileSync } from "node:fs";

export interface ProfileLine {
  /** A function (`name (file:line)`) or a package, its self time, and its share of all samples (0–1). */
  readonly name: string;
  readonly selfMs: number;
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
  const workspace = /\/packages\/([^/]+)\/(?:dist|src)\//.exec(url)?.[1];
  const pnpm = /\/node_modules\/\.pnpm\/(@?[^@/]+(?:\+[^@/]+)?)@/.exec(url)?.[1];
  const npm = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1];
  if (workspace) return `@skill/${workspace}`;
  return (
    pnpm?.replace("+", "/") ??
    npm ??
    (url.includes("/bench/") ? "bench" : url.slice(url.lastIndexOf("/") + 1))
  );
}

/** Self time by package and by function in a `.cpuprofile` file (as `node --cpu-prof` writes it). */
export function summarizeProfile(file: string, count = 12): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, "utf8")) as {
    nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
    samples?: number[];
    timeDeltas?: number[];
  };
  const frames = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
  const [functions, packages] = [new Map<string, number>(), new Map<string, number>()];
  let totalMs = 0;
  for (const [i, id] of (profile.samples ?? []).entries()) {
    const frame = frames.get(id);
    if (!frame) continue;
    const ms = (profile.timeDeltas?.[i] ?? 0) / 1000;
    totalMs += ms;
    const path = frame.url
      .slice(frame.url.lastIndexOf("/node_modules/") + 1)
      .replace(/^node_modules\/|^file:\/\//, "");
    const where = `${path.split("/").slice(-3).join("/")}:${frame.lineNumber + 1}`;
    const fn = frame.url ? `${frame.functionName || "(anonymous)"} (${where})` : frame.functionName;
    functions.set(fn, (functions.get(fn) ?? 0) + ms);
    packages.set(
      ownerOf(frame.url, frame.functionName),
      (packages.get(ownerOf(frame.url, frame.functionName)) ?? 0) + ms,
    );
  }
  const top = (totals: Map<string, number>) =>
    [...totals]
      .sort((a, b) => b[1] - a[1])
      .slice(0, count)
      .map(([name, selfMs]) => ({ name, selfMs, share: totalMs > 0 ? selfMs / totalMs : 0 }));
  return { totalMs, packages: top(packages), functions: top(functions) };
}
