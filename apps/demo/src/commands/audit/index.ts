import { stat } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, resolve, sep } from "node:path";
import { type AuditResult, auditRegistrySkill, auditSkill, type Capabilities } from "@skill/audit";
import { printable, type SkillService } from "@skill/core";
import { scanSkillFiles } from "@skill/discovery";
import type { Context } from "../../context.js";
import { UserError } from "../../errors.js";
import { displayPath, plural, table } from "../../output.js";
import { progressLine } from "../../progress.js";
import { createService, loadSkills } from "../../service.js";

/** A skill folder on disk, or a skill only its service can read (MCP, built-in): `location` is its URI. */
type Target =
  | { readonly name: string; readonly dir: string; readonly notLoaded?: string }
  | { readonly name: string; readonly location: string; readonly service: SkillService };

function keyOf(target: Target): string {
  return "dir" in target ? target.dir : `\0${target.name}`;
}

/** Where a finding is, for people: the file under the folder, or the file of the skill's URI. */
function findingPlace(ctx: Context, target: Target, path: string): string {
  if ("dir" in target) return displayPath(join(target.dir, path), ctx.cwd, ctx.home);
  const { location } = target;
  if (location.endsWith("/SKILL.md")) return printable(`${location.slice(0, -"SKILL.md".length)}${path}`);
  return printable(path === "SKILL.md" ? location : `${location} ${path}`);
}

function placeOf(ctx: Context, target: Target): string {
  return "dir" in target ? displayPath(target.dir, ctx.cwd, ctx.home) : printable(target.location);
}

function looksLikePath(arg: string): boolean {
  return arg.includes("/") || arg.includes(sep) || arg.startsWith(".") || arg.toLowerCase().endsWith(".md");
}

/** Skill folders named by the arguments: folders, SKILL.md files, trees of skills, or skill names. */
async function targetsFor(ctx: Context, args: readonly string[]): Promise<Target[]> {
  let service: SkillService | undefined;
  let failed: readonly { readonly path: string; readonly why: string }[] = [];
  const loaded = async (): Promise<SkillService> => {
    if (!service) {
      service = createService(ctx);
      const report = await loadSkills(ctx, service);
      // SKILL.md files that failed to load: their folders are audited too (their other files
      // can still carry scripts and hidden instructions), and the audit says what it could not read.
      failed = report.failed
        .filter((f) => isAbsolute(f.path) && basename(f.path) === "SKILL.md")
        .map((f) => ({ path: f.path, why: f.error.message.replace(` in ${f.path}`, "") }));
    }
    return service;
  };
  // A skill that is not a file (MCP, built-in) is read through the service that found it.
  const fromLocation = (name: string, location: string, from: SkillService): Target =>
    isAbsolute(location) ? { name, dir: dirname(location) } : { name, location, service: from };

  const targets: Target[] = [];
  if (args.length === 0) {
    const all = await loaded();
    for (const skill of all.all(ctx.agent)) targets.push(fromLocation(skill.name, skill.location, all));
    for (const f of failed)
      targets.push({ name: basename(dirname(f.path)), dir: dirname(f.path), notLoaded: f.why });
  }
  for (const arg of args) {
    const path = resolve(arg); // relative to where the command runs, like every path argument
    const info = await stat(path).catch(() => undefined);
    if (info?.isDirectory()) {
      // Nested skills too: a skill's audit leaves a subfolder with its own SKILL.md to that skill.
      const files = await scanSkillFiles(path, { logger: ctx.logger });
      if (files.length === 0) throw new UserError(`No SKILL.md found in ${path}`);
      for (const file of files) targets.push({ name: basename(dirname(file)), dir: dirname(file) });
    } else if (info?.isFile()) {
      if (basename(path) !== "SKILL.md") throw new UserError(`Not a skill folder or SKILL.md: ${path}`);
      targets.push({ name: basename(dirname(path)), dir: dirname(path) });
    } else if (looksLikePath(arg)) {
      throw new UserError(`No such skill folder or file: ${path}`);
    } else {
      // A skill the agent is denied is, for it, missing (NOT_FOUND lists only what it sees).
      const from = await loaded();
      const skill = from.require(arg, ctx.agent);
      targets.push(fromLocation(skill.name, skill.location, from));
    }
  }
  const seen = new Set<string>();
  return targets.filter((t) => !seen.has(keyOf(t)) && seen.add(keyOf(t)) !== undefined);
}

const KINDS: readonly (readonly [Exclude<keyof Capabilities, "hooks">, string])[] = [
  ["tools", "tools"],
  ["executables", "executables"],
  ["commands", "commands"],
  ["hosts", "hosts"],
  ["env", "env"],
];

/** One line per kind a skill has; each list cut to `max` entries unless verbose. */
function capabilityLines(capabilities: Capabilities, max: number): string[] {
  const lines: string[] = [];
  for (const [kind, label] of KINDS) {
    const values = capabilities[kind].map((v) => printable(v.replace(/\s+/g, " ")));
    if (values.length === 0) continue;
    const shown = values.length > max ? [...values.slice(0, max), `(+${values.length - max} more)`] : values;
    lines.push(`${label}: ${shown.join(", ")}`);
  }
  if (capabilities.hooks) lines.push("hooks: yes");
  return lines;
}

type Audited = Target & ({ readonly result: AuditResult } | { readonly error: string });

/** Errors and warnings of an audit: findings, audits that failed, and skills that did not load. */
function counted(audited: readonly Audited[]): { errors: number; warnings: number } {
  let errors = 0;
  let warnings = 0;
  for (const a of audited) {
    if ("notLoaded" in a && a.notLoaded !== undefined) warnings++;
    if ("error" in a) errors++;
    else
      for (const f of a.result.findings) {
        if (f.severity === "error") errors++;
        else warnings++;
      }
  }
  return { errors, warnings };
}

/** `skill audit [PATH… | NAME…]`: capabilities and hidden-instruction findings, exit 1 on any error. */
export async function run(ctx: Context, args: readonly string[]): Promise<number> {
  const targets = await targetsFor(ctx, args);
  const audited: Audited[] = [];
  const progress = progressLine("skill audit  {bar}  {value}/{total} skills  {detail}", {
    enabled: !ctx.out.json,
  });
  progress.total(targets.length);
  for (const target of targets) {
    progress.note({ detail: printable(target.name).slice(0, 60) });
    try {
      const result =
        "dir" in target
          ? await auditSkill(target.dir)
          : await auditRegistrySkill(target.service, target.name, ctx.agent);
      audited.push({ ...target, result });
    } catch (error) {
      audited.push({ ...target, error: (error as Error).message });
    }
    progress.increment();
  }
  progress.stop();
  const { errors, warnings } = counted(audited);
  const { out } = ctx;
  if (out.json) {
    out.data({
      skills: audited.map((a) => {
        const where =
          "dir" in a
            ? { dir: a.dir, ...(a.notLoaded === undefined ? {} : { notLoaded: a.notLoaded }) }
            : { location: a.location };
        return "error" in a
          ? { name: a.name, ...where, error: a.error }
          : {
              name: a.name,
              ...where,
              capabilities: a.result.capabilities,
              findings: a.result.findings,
              files: a.result.files,
              bytes: a.result.bytes,
              complete: a.result.complete,
            };
      }),
      errors,
      warnings,
    });
    return errors > 0 ? 1 : 0;
  }
  const c = out.color;
  const rows: string[][] = [];
  for (const a of audited) {
    if ("notLoaded" in a && a.notLoaded !== undefined) {
      // An agent does not load it as it is, but its files are on disk all the same.
      const why = `not loaded (${a.notLoaded})${"error" in a ? "" : "; its files were audited"}`;
      rows.push([
        findingPlace(ctx, a, "SKILL.md"),
        c.yellow("warning"),
        c.dim("load-failed"),
        printable(why),
      ]);
    }
    if ("error" in a) {
      rows.push([placeOf(ctx, a), c.red("error"), c.dim("audit-failed"), printable(a.error)]);
      continue;
    }
    for (const f of a.result.findings) {
      const shown = findingPlace(ctx, a, f.path);
      rows.push([
        f.line === undefined ? shown : `${shown}:${f.line}`,
        f.severity === "error" ? c.red("error") : c.yellow("warning"),
        c.dim(f.rule),
        printable(f.message),
      ]);
    }
  }
  for (const line of table(rows)) out.line(line);
  if (rows.length > 0) out.line();
  const max = out.verbose ? Number.POSITIVE_INFINITY : 8;
  for (const a of audited) {
    if ("error" in a) continue;
    out.line(`${c.bold(printable(a.name))}  ${c.dim(placeOf(ctx, a))}`);
    const lines = capabilityLines(a.result.capabilities, max);
    for (const line of lines.length > 0 ? lines : ["no tools, executables, commands, hosts, env or hooks"]) {
      out.line(`  ${line}`);
    }
  }
  out.line(
    `${plural(audited.length, "skill")} audited: ${plural(errors, "error")}, ${plural(warnings, "warning")}`,
  );
  return errors > 0 ? 1 : 0;
}
