import { stat } from "node:fs/promises";
import { basename, join, resolve } from "node:path";
import {
  type Diagnostic,
  printable,
  skillFiles,
  VALIDATION_TARGETS,
  type ValidationTarget,
  validateSkillFile,
} from "@skill/core";
import { scanSkillFiles } from "@skill/discovery";
import wrapAnsi from "wrap-ansi";
import type { Context } from "../../context.js";
import { UsageError } from "../../errors.js";
import { displayPath, plural, table, width } from "../../output.js";
import { sources } from "../../service.js";

/**
 * SKILL.md files named by the arguments: a file, a skill folder, or a tree of skills. A
 * folder argument that holds no SKILL.md at all goes to `empty`: asked to check it, finding
 * nothing is a failure (a typo in the path, or skills not where they were expected).
 */
async function filesFor(
  ctx: Context,
  args: readonly string[],
  target: ValidationTarget,
  empty: string[],
): Promise<string[]> {
  if (args.length === 0) {
    const scans = await Promise.all(sources(ctx).map((s) => s.scan({}).catch(() => ({ entries: [] }))));
    // Only files on disk can be validated as files.
    return [...new Set(scans.flatMap((s) => s.entries.filter((e) => !e.read).map((e) => e.location)))];
  }
  const files: string[] = [];
  for (const arg of args) {
    const path = resolve(arg); // relative to where the command runs, like every path argument
    const info = await stat(path).catch(() => undefined);
    if (info?.isDirectory()) {
      // skills-ref also reads skill.md in lower case, as its own validator does.
      const names = target === "skills-ref" ? ["SKILL.md", "skill.md"] : ["SKILL.md"];
      let direct: string | undefined;
      for (const name of names) {
        const candidate = join(path, name);
        if (
          await stat(candidate).then(
            (s) => s.isFile(),
            () => false,
          )
        ) {
          direct = candidate;
          break;
        }
      }
      let found = direct ? [direct] : await scanSkillFiles(path, { logger: ctx.logger });
      // No SKILL.md: a lower-case skill.md is still a skill file to judge (skills-ref reads it,
      // agents do not: validateSkillFile says so), not "nothing found".
      if (found.length === 0) found = await lowerCaseSkillFiles(path);
      if (found.length === 0) empty.push(path);
      files.push(...found);
    } else {
      files.push(path); // a missing path is reported by validateSkillFile as file-not-found
    }
  }
  return [...new Set(files)];
}

/** Every `skill.md` (lower case) under `dir`, found with core's walker. */
async function lowerCaseSkillFiles(dir: string): Promise<string[]> {
  const files = await skillFiles(dir, {
    nested: true,
    limit: 10_000,
    maxBytes: Number.POSITIVE_INFINITY,
  }).catch(() => []);
  return files.filter((f) => basename(f.path) === "skill.md").map((f) => join(dir, f.path));
}

/** `skill validate [PATH…]`: Agent Skills rules, `file:line rule message` per finding. */
export async function run(
  ctx: Context,
  args: readonly string[],
  options: { strict?: boolean; target?: string },
): Promise<number> {
  const target = (options.target ?? "spec") as ValidationTarget;
  if (!VALIDATION_TARGETS.includes(target)) {
    throw new UsageError(`--target must be one of ${VALIDATION_TARGETS.join(", ")}, got '${options.target}'`);
  }
  const strict = options.strict === true;
  const empty: string[] = [];
  const files = await filesFor(ctx, args, target, empty);
  const results: { path: string; diagnostics: Diagnostic[] }[] = [];
  for (const path of files) {
    results.push({ path, diagnostics: await validateSkillFile(path, { strict, target }) });
  }
  const all = results.flatMap((r) => r.diagnostics);
  const errors = all.filter((d) => d.severity === "error").length;
  const warnings = all.length - errors;
  const { out } = ctx;
  const failed = errors > 0 || empty.length > 0;
  const byRule = countByRule(all);
  if (out.json) {
    out.data({ strict, target, files: results, empty, errors, warnings, byRule });
    return failed ? 1 : 0;
  }
  const c = out.color;
  const rows = results.flatMap(({ path, diagnostics }) => {
    const shown = displayPath(path, ctx.cwd, ctx.home);
    return diagnostics.map((d) => [
      d.line === undefined ? shown : `${shown}:${d.line}`,
      d.severity === "error" ? c.red("error") : c.yellow("warning"),
      c.dim(d.code),
      printable(d.message.replace(` in ${path}`, "")),
    ]);
  });
  const lines = table(rows);
  if (lines.every((line) => width(line) <= out.width)) {
    for (const line of lines) out.line(line);
  } else {
    // Too wide for this terminal: where, how bad and which rule on one line, the message
    // wrapped below it (as gh does for long fields), so nothing is cut off.
    const heads = table(rows.map((r) => r.slice(0, 3)));
    heads.forEach((head, i) => {
      out.line(head);
      const message = (rows[i] as string[])[3] as string;
      for (const part of wrapAnsi(message, Math.max(20, out.width - 4), { hard: true }).split("\n")) {
        out.line(`    ${part}`);
      }
    });
  }
  for (const dir of empty) out.error(`skill: no SKILL.md found in ${displayPath(dir, ctx.cwd, ctx.home)}`);
  if (files.length === 0 && empty.length === 0) out.line("No SKILL.md files found.");
  const clean = results.filter((r) => r.diagnostics.length === 0).length;
  out.line(
    `${plural(files.length, "file")} checked${target === "spec" ? "" : ` for ${target}`}${strict ? " (strict)" : ""}: ${clean} clean, ${plural(errors, "error")}, ${plural(warnings, "warning")}`,
  );
  for (const severity of ["error", "warning"] as const) {
    const counts = Object.entries(byRule[severity]);
    // One rule is said by the findings themselves; from two on, the counts say which matter.
    if (counts.length < 2) continue;
    const shown = out.verbose ? counts : counts.slice(0, RULES_SHOWN);
    const rest = counts.length - shown.length;
    const list = shown.map(([rule, n]) => `${rule} ${n}`).join(", ");
    out.line(
      `  ${severity}s by rule: ${list}${rest > 0 ? ` and ${plural(rest, "more rule")} (--verbose lists all)` : ""}`,
    );
  }
  return failed ? 1 : 0;
}

/** Rules named on the by-rule lines before `and N more rules`. */
const RULES_SHOWN = 8;

/**
 * Findings counted by rule, most first (then by name), errors and warnings apart. A rule is the
 * code before any `:` (`unknown-field:version` and `unknown-field:author` are `unknown-field`).
 */
function countByRule(all: readonly Diagnostic[]): Record<"error" | "warning", Record<string, number>> {
  const count = (severity: "error" | "warning") => {
    const counts = new Map<string, number>();
    for (const d of all) {
      if (d.severity !== severity) continue;
      const rule = d.code.split(":")[0] ?? d.code;
      counts.set(rule, (counts.get(rule) ?? 0) + 1);
    }
    return Object.fromEntries([...counts].sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0)));
  };
  return { error: count("error"), warning: count("warning") };
}
