import { join, resolve } from "node:path";
import { type Diagnostic, printable, quote } from "@skill/core";
import { scanSkillFiles } from "@skill/discovery";
import { type PackedArchive, PULL_DEFAULTS, writeManifest } from "@skill/remote";
import type { Context } from "../../context.js";
import { displayPath, formatBytes, plural, table } from "../../output.js";
import { progressLine } from "../../progress.js";
import { writePage } from "./page.js";

/** The code of a warning that `skill pull`, with its default limits, would refuse an archive written. */
const OVER_PULL_LIMIT = "over-pull-limit";

/**
 * A warning for each default limit of `skill pull` an archive is over, naming the skill, what is
 * over, the limit and the `skill pull` option that raises it. The limits are `@skill/remote`'s
 * own defaults, and the archive's measures are as its pull counts them: pack and pull agree.
 */
function overPullLimits(ctx: Context, root: string, archives: readonly PackedArchive[]): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const a of archives) {
    const path = join(root, ...a.path.split("/"));
    const over = (found: string, limit: string, option: string, flag: string, needed: number) =>
      out.push({
        code: OVER_PULL_LIMIT,
        severity: "warning",
        message: `Skill ${quote(a.name)}: its archive ${displayPath(path, ctx.cwd, ctx.home)} ${found}, over the ${limit} that skill pull takes by default (${option}); pull it with skill pull ${flag} ${needed}`,
        path,
      });
    const bytes = a.bytes.byteLength;
    if (bytes > PULL_DEFAULTS.maxArchiveBytes) {
      over(
        `is ${formatBytes(bytes)}`,
        formatBytes(PULL_DEFAULTS.maxArchiveBytes),
        "maxArchiveBytes",
        "--max-archive-bytes",
        bytes,
      );
    }
    if (a.unpackedBytes > PULL_DEFAULTS.maxUnpackedBytes) {
      over(
        `unpacks to ${formatBytes(a.unpackedBytes)} (each file counted as at least 4 KiB)`,
        formatBytes(PULL_DEFAULTS.maxUnpackedBytes),
        "maxUnpackedBytes",
        "--max-unpacked-bytes",
        a.unpackedBytes,
      );
    }
    if (a.entries > PULL_DEFAULTS.maxArchiveFiles) {
      over(
        `holds ${plural(a.entries, "file")}`,
        `${PULL_DEFAULTS.maxArchiveFiles} files`,
        "maxArchiveFiles",
        "--max-archive-files",
        a.entries,
      );
    }
  }
  return out;
}

type PackOptions = { archives?: boolean; baseUrl?: string; skipInvalid?: boolean; html?: boolean };

/**
 * The index and archives, and with `html` the page (written after the index, and only when it
 * was: it shows what the index lists), with a progress line on a terminal as they are made.
 */
async function packWithProgress(ctx: Context, root: string, skills: readonly string[], opts: PackOptions) {
  const progress = progressLine("skill pack  {bar}  {value}/{total} skills  {detail}", {
    enabled: !ctx.out.json,
  });
  try {
    const result = await writeManifest(root, {
      skills,
      logger: ctx.logger,
      onProgress: ({ skill, done, total }) => {
        progress.total(total);
        progress.update(done, { detail: printable(skill).slice(0, 60) });
      },
      ...(opts.archives === false ? { archives: false } : {}),
      ...(opts.baseUrl === undefined ? {} : { baseUrl: opts.baseUrl }),
      ...(opts.skipInvalid ? { skipInvalid: true } : {}),
    });
    const page =
      opts.html && result.written
        ? await writePage(root, result.manifest, skills, opts.baseUrl, progress)
        : undefined;
    return { ...result, page };
  } finally {
    progress.stop();
  }
}

/**
 * `skill pack DIR`: writes DIR/index.json (and archives) for any static web server, or nothing
 * when a skill fails; with `html`, DIR/index.html too, the pack's page. The skills are what
 * discovery's scan finds under DIR (dot-folders left out, as a static server would hide them);
 * each skill's files are core's walk of its folder.
 */
export async function run(
  ctx: Context,
  dir: string,
  opts: PackOptions & { quiet?: boolean } = {},
): Promise<number> {
  const root = resolve(dir); // relative to where the command runs
  // What the scan could not use (dangling links, unreadable folders) is the author's to see.
  const scanned: Diagnostic[] = [];
  const skills = await scanSkillFiles(root, {
    skipDotDirs: true,
    logger: {
      warn: (message, fields) =>
        scanned.push({
          code: fields?.code ?? "scan-warning",
          severity: "warning",
          message,
          ...(fields?.path === undefined ? {} : { path: fields.path }),
        }),
    },
  });
  const result = await packWithProgress(ctx, root, skills, opts);
  // The pack reports a link inside a skill itself; the scan's word on the same path is a repeat.
  const reported = new Set(result.diagnostics.map((d) => d.path));
  // Only what was written can be pulled: a pack that wrote nothing has no archive to warn of.
  const overLimits = result.written ? overPullLimits(ctx, root, result.archives) : [];
  const diagnostics = [...scanned.filter((d) => !reported.has(d.path)), ...result.diagnostics, ...overLimits];
  const { out } = ctx;
  const indexPath = join(root, "index.json");
  const page = result.page;
  if (out.json) {
    out.data({
      path: indexPath,
      ...(page ? { page: page.path } : {}),
      written: result.written,
      manifest: result.manifest,
      archives: result.archives.map((a) => a.path),
      failed: result.failed.map((f) => ({ path: f.path, code: f.error.code, message: f.error.message })),
      diagnostics,
    });
    return result.written ? 0 : 1;
  }
  const c = out.color;
  const warnings = diagnostics.filter((d) => d.severity === "warning");
  // The outcome first, then what stands in its way: a big collection's warnings must not bury it.
  if (result.written) {
    const left =
      result.failed.length > 0 ? `; ${c.yellow(`${result.failed.length} left out`)} (--skip-invalid)` : "";
    out.line(
      `${c.green("✓")} wrote ${displayPath(indexPath, ctx.cwd, ctx.home)}: ${plural(result.manifest.skills.length, "skill")}${result.archives.length > 0 ? `, ${plural(result.archives.length, "archive")}` : ""}${left}${warnings.length > 0 ? `, ${plural(warnings.length, "warning")}` : ""}`,
    );
    if (page) out.line(`${c.green("✓")} wrote ${displayPath(page.path, ctx.cwd, ctx.home)}: the pack's page`);
  } else {
    out.error(
      `${c.red("✗")} nothing written: ${plural(result.failed.length, "skill")} cannot be listed${result.failed.length > 0 ? " (fix them, or pass --skip-invalid to pack the rest)" : ""}`,
    );
  }
  for (const f of result.failed) {
    out.error(`${c.red("✗")} ${result.written ? "left out" : "not listed"}: ${printable(f.error.message)}`);
  }
  // An archive a default pull refuses qualifies the outcome: said even with --quiet, never summed up.
  for (const d of overLimits) out.error(`${c.yellow("!")} ${printable(d.message)}`);
  const others = warnings.filter((d) => d.code !== OVER_PULL_LIMIT);
  if (!opts.quiet) {
    if (others.length <= MAX_LISTED || out.verbose) {
      for (const d of others) out.error(`${c.yellow("!")} ${printable(d.message)}`);
    } else {
      out.error(
        `${c.yellow("!")} ${plural(others.length, "warning")} (--verbose lists each): ${byCode(others)}`,
      );
    }
  }
  if (!result.written) return 1;
  if (opts.quiet) return 0;
  const rows = result.manifest.skills.map((s) => [
    printable(s.name),
    c.dim(
      [
        s.type ?? "v0.1",
        s.files ? plural(s.files.length, "file") : "v0.2 only",
        s.digest ? s.digest.slice(0, 19) : `version ${s.version ?? "-"}`,
      ].join(", "),
    ),
  ]);
  for (const line of table(rows)) out.line(`    ${line}`);
  return 0;
}

/** Warnings a pack lists one by one; more are counted by rule. */
const MAX_LISTED = 20;

/** `1200 unknown-field:version, 300 name-mismatch, …`: the most frequent rules first. */
function byCode(warnings: readonly Diagnostic[]): string {
  const counts = new Map<string, number>();
  for (const d of warnings) counts.set(d.code, (counts.get(d.code) ?? 0) + 1);
  return [...counts]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, 8)
    .map(([code, n]) => `${n} ${printable(code)}`)
    .join(", ")
    .concat(counts.size > 8 ? ", …" : "");
}
