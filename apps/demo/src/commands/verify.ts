import { printable } from "@skill/core";
import { verifyCache } from "@skill/remote";
import type { Context } from "../context.js";
import { displayPath, plural } from "../output.js";

const WHAT = {
  modified: "changed since it was pulled",
  missing: "missing",
  extra: "not part of the pulled skill",
  unverifiable: "no digest recorded (pull again to record one)",
} as const;

/** `skill verify [URL]`: re-hashes the cached packs (or one) and lists what changed on disk. */
export async function verify(ctx: Context, url: string | undefined): Promise<number> {
  const report = await verifyCache(ctx.cacheDir, url);
  const { out } = ctx;
  if (out.json) {
    out.data({ cacheDir: ctx.cacheDir, ...report });
    return report.ok ? 0 : 1;
  }
  const c = out.color;
  for (const p of report.problems) {
    out.line(
      `${c.red("✗")} ${printable(p.name)}: ${displayPath(printable(p.path), ctx.cwd, ctx.home)} ${WHAT[p.kind]}`,
    );
  }
  const mark = report.ok ? c.green("✓") : c.red("✗");
  const problems = report.problems.length > 0 ? `, ${plural(report.problems.length, "problem")}` : "";
  out.line(`${mark} ${plural(report.checked, "cached skill")} checked${problems}`);
  out.line(`cache: ${ctx.cacheDir}`);
  return report.ok ? 0 : 1;
}
