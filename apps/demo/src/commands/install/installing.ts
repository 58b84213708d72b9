// What the install commands (add, install, update, remove, check) share on the CLI's side:
// flags to an install scope, the site port filled with @skill/remote, the library's words in
// the CLI's, and the report of what was installed. The installing itself is @skill/install's.
import { mkdir, readFile, readlink } from "node:fs/promises";
import { join, relative } from "node:path";
import { printable, SkillError } from "@skill/core";
import {
  AGENT_TARGETS,
  type AgentTarget,
  agentTarget,
  detectAgents,
  type FileChanges,
  type InstallPlan,
  type InstallReport,
  type InstallScope,
  type SitePort,
} from "@skill/install";
import type { Context } from "../../context.js";
import { UsageError, UserError } from "../../errors.js";
import { displayPath, plural } from "../../output.js";
import { projectRoot } from "../../project-root.js";
import { type AgentVerdict, agentVerdicts } from "./agent-verdict.js";

export interface InstallFlags {
  readonly for?: string[];
  readonly global?: boolean;
  readonly copy?: boolean;
  readonly yes?: boolean;
  readonly force?: boolean;
}

/** The install scope of a command: the project, or the home with `-g`. */
export function scopeOf(ctx: Context, flags: { readonly global?: boolean }): InstallScope {
  const cwd = flags.global ? ctx.cwd : projectRoot(ctx.cwd, ctx.home);
  return { cwd, home: ctx.home, scope: flags.global ? "global" : "project", env: ctx.env };
}

/**
 * Vercel's `skills --agent claude-code` installs for Claude Code; here `--agent` names whose
 * permission rules apply. Said once, on stderr, when it names an agent one installs for and
 * `--for` is not given.
 */
export function noteAgentOption(ctx: Context, flags: InstallFlags): void {
  if (flags.for?.length) return;
  let name: string;
  try {
    name = ctx.agent.name;
  } catch {
    return; // A broken config: the install says so where it reads it.
  }
  if (!AGENT_TARGETS.some((t) => t.id === name)) return;
  ctx.out.error(
    printable(
      `skill: note: --agent ${name} names whose permission rules apply; to install for ${name}, use --for ${name} (what Vercel's skills calls --agent)`,
    ),
  );
}

/**
 * Each refusal as `"name": reason`, once: copies refused for one reason (two skills of one
 * name) share their sentence.
 */
export function refusalLines(
  refused: readonly { readonly name: string; readonly reason: string }[],
): string[] {
  return [...new Set(refused.map((r) => `${JSON.stringify(printable(r.name))}: ${printable(r.reason)}`))];
}

/** The agents `--for` names (each checked), or the ones detected in the scope. */
export async function chosenAgents(
  ctx: Context,
  scope: InstallScope,
  flags: InstallFlags,
): Promise<AgentTarget[]> {
  noteAgentOption(ctx, flags);
  const names = flags.for?.length ? flags.for : await detectAgents(scope);
  const chosen: AgentTarget[] = [];
  for (const name of names) {
    let agent: AgentTarget;
    try {
      agent = agentTarget(name);
    } catch (error) {
      throw new UsageError(
        `${(error as Error).message.replace(/^Unknown agent (\S+)/, "Unknown agent $1 in --for")}`,
      );
    }
    if (!chosen.includes(agent)) chosen.push(agent);
  }
  return chosen;
}

/** The library's words for what to do next, in the CLI's. */
const CLI_WORDS: readonly (readonly [RegExp, string])[] = [
  [/\bforce replaces\b/g, "--force replaces"],
  [/\bforce removes\b/g, "--force removes"],
  [/\bwithout frozen\b/g, "without --frozen"],
  [/^frozen:/, "--frozen:"],
  [/\(an update takes the new version\)/g, "(skill update takes the new version)"],
  [/\(a restore puts it back\)/g, "(skill install restores it)"],
  [/\(an add writes it\)/g, "(skill add writes it)"],
];

/** `error` as the CLI says it: a `SkillError` with the library's hints in flag names. */
export function cliError(error: unknown): unknown {
  if (!SkillError.isInstance(error)) return error;
  let message = error.message;
  for (const [pattern, words] of CLI_WORDS) message = message.replace(pattern, words);
  return message === error.message ? error : new UserError(message);
}

/** A reason of the library, in the CLI's words. */
export function cliWords(text: string): string {
  let message = text;
  for (const [pattern, words] of CLI_WORDS) message = message.replace(pattern, words);
  return message;
}

/** The digests a pull verified, by entry name, from `<pack>/.state.json` (`@skill/remote`'s cache state). */
async function stateDigests(packDir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  try {
    const state = JSON.parse(await readFile(join(packDir, ".state.json"), "utf8")) as {
      skills?: Record<string, { digest?: unknown }>;
    };
    for (const [name, s] of Object.entries(state.skills ?? {})) {
      if (typeof s?.digest === "string") out.set(name, s.digest);
    }
  } catch {
    // No state (a pull that served nothing): no digests.
  }
  return out;
}

/** Sites for @skill/install, through @skill/remote's pull (digests and archives checked as `skill pull` checks them). */
export function sitePort(ctx: Context): SitePort {
  return {
    async pull(url, into, signal) {
      const { pull } = await import("@skill/remote");
      const { loadSkillFile } = await import("@skill/core");
      const cacheDir = join(into, "cache");
      await mkdir(cacheDir, { recursive: true });
      // --timeout, --offline and the pull limits, as `skill pull` takes them.
      const result = await pull(url, {
        cacheDir,
        ...(ctx.timeoutMs === undefined ? {} : { timeoutMs: ctx.timeoutMs }),
        ...(ctx.offline ? { offline: true } : {}),
        ...ctx.limits,
        ...(signal === undefined ? {} : { signal }),
      });
      const digests = await stateDigests(result.dir);
      const skills = [];
      for (const file of result.files) {
        const folder = relative(into, join(file, ".."));
        const entry = relative(result.dir, join(file, ".."));
        const { skill } = await loadSkillFile(file);
        const digest = digests.get(entry);
        skills.push({ name: skill.name, folder, ...(digest ? { digest } : {}) });
      }
      return {
        skills,
        indexUrl: result.indexUrl,
        skipped: result.skipped.map((s) => ({ name: s.name, reason: s.reason })),
      };
    },
  };
}

/** What each agent makes of the installed skills; a failure there (a broken config) is a warning, not a failed install. */
async function checkAgents(
  ctx: Context,
  agents: readonly AgentTarget[],
  installed: readonly { readonly skill: string; readonly dir: string }[],
): Promise<AgentVerdict[]> {
  try {
    return await agentVerdicts(ctx, agents, installed);
  } catch (error) {
    ctx.out.error(
      `skill: warning: installed, but could not check what the agents load: ${printable((error as Error).message)}`,
    );
    return [];
  }
}

/** Each agent folder a skill reached, grouped by path: its agents, and the link's text (none for a copy). */
async function linksOf(skill: InstallPlan["skills"][number]) {
  const byPath = new Map<string, { agents: string[]; path: string; target?: string }>();
  for (const a of skill.agents) {
    if (a.how === "canonical") continue;
    const known = byPath.get(a.path);
    if (known) known.agents.push(a.agent);
    else {
      const target = a.how === "link" ? await readlink(a.path).catch(() => undefined) : undefined;
      byPath.set(a.path, { agents: [a.agent], path: a.path, ...(target === undefined ? {} : { target }) });
    }
  }
  return [...byPath.values()];
}

/** Prints what was installed and what each agent makes of it; returns the JSON form when --json. */
async function printInstalled(
  ctx: Context,
  plan: InstallPlan,
  report: InstallReport,
  verdicts: readonly AgentVerdict[],
): Promise<unknown> {
  const show = (p: string) => displayPath(p, ctx.cwd, ctx.home);
  const { out } = ctx;
  const c = out.color;
  const done = plan.skills.filter((s) => report.installed.some((i) => i.name === s.name));
  // Many skills at once: a line each, and what each agent makes of them counted below.
  const brief = done.length > DETAILED_UP_TO && !out.verbose;
  const json = [];
  for (const skill of done) {
    const links = await linksOf(skill);
    const replaced = (skill.overrides ?? []).map(show);
    // Installed before with the same bytes: said, so a second add does not read as a new install.
    const unchanged = skill.replaces?.computedHash === skill.computedHash;
    json.push({
      name: skill.name,
      path: skill.folder,
      source: skill.source,
      computedHash: skill.computedHash,
      unchanged,
      replaced,
      links,
      agents: verdicts.filter((v) => v.skill === skill.name),
    });
    if (out.json) continue;
    out.line(
      `${c.green("✓")} ${c.bold(printable(skill.name))} → ${show(skill.folder)} ${c.dim(`(${unchanged ? "already installed, unchanged; " : ""}from ${printable(skill.source)}, ${skill.computedHash.slice(0, 12)}…)`)}`,
    );
    if (replaced.length > 0) out.line(`  ${c.yellow("replaced")} ${replaced.join(", ")}`);
    if (brief) continue;
    for (const link of links) {
      const how = link.target === undefined ? "copy" : `-> ${printable(link.target)}`;
      out.line(`  ${show(link.path)} ${how} ${c.dim(`(${link.agents.join(", ")})`)}`);
    }
    for (const v of verdicts.filter((x) => x.skill === skill.name)) {
      if (v.loaded) {
        const as = v.name === skill.name ? "" : ` as ${JSON.stringify(printable(v.name))}`;
        const via = v.inside === undefined ? "" : ` (its copy inside ${JSON.stringify(printable(v.inside))})`;
        out.line(`  ${c.bold(v.agent)}: loads it${as}${via}`);
      } else {
        out.line(
          `  ${c.bold(v.agent)}: ${c.yellow("will not load it")}: ${v.reason}${v.detail ? ` (${printable(v.detail)})` : ""}`,
        );
      }
    }
  }
  const refused = report.refused.map((r) => ({ name: r.name, code: r.code, reason: cliWords(r.reason) }));
  if (out.json) return { installed: json, refused, skipped: plan.skipped, lock: report.lock };
  for (const line of refusalLines(refused)) out.error(`skill: Not installing ${line}`);
  if (brief) for (const line of agentCounts(verdicts, done.length)) out.line(`  ${line}`);
  if (report.lock) out.line(c.dim(`lock: ${show(report.lock)}`));
  const notes = [
    ...(refused.length > 0 ? [`${refused.length} refused`] : []),
    ...(plan.skipped.length > 0 ? [`${plan.skipped.length} skipped`] : []),
  ];
  if (done.length + refused.length + plan.skipped.length > 1 || brief) {
    out.line(`${plural(done.length, "skill")} installed${notes.length > 0 ? `, ${notes.join(", ")}` : ""}`);
  }
  return undefined;
}

/** Up to this many skills, each gets its links and each agent's verdict; beyond, --verbose. */
const DETAILED_UP_TO = 20;

/** `codex: loads 417 of 419; will not load 2 (--verbose says why)`, an agent a line. */
function agentCounts(verdicts: readonly AgentVerdict[], installed: number): string[] {
  const agents = [...new Set(verdicts.map((v) => v.agent))];
  return agents.map((agent) => {
    const mine = verdicts.filter((v) => v.agent === agent);
    const loads = mine.filter((v) => v.loaded).length;
    const not = mine.length - loads;
    return `${agent}: loads ${loads} of ${installed}${not > 0 ? `; will not load ${not} (--verbose says why)` : ""}`;
  });
}

/** After an install: what each agent makes of the skills `report` installed, printed with the report (or given as JSON). */
export async function showInstalled(
  ctx: Context,
  agents: readonly AgentTarget[],
  plan: InstallPlan,
  report: InstallReport,
): Promise<void> {
  const installed = report.installed.map((s) => ({ skill: s.name, dir: s.folder }));
  const verdicts = await checkAgents(ctx, agents, installed);
  const json = await printInstalled(ctx, plan, report, verdicts);
  if (json !== undefined) ctx.out.data(json);
}

/** `a.md, b.sh changed; c added` */
export function describeChanges(files: FileChanges): string {
  const parts: string[] = [];
  const list = (paths: readonly string[]) => paths.map(printable).join(", ");
  if (files.changed.length > 0) parts.push(`${list(files.changed)} changed`);
  if (files.added.length > 0) parts.push(`${list(files.added)} added`);
  if (files.removed.length > 0) parts.push(`${list(files.removed)} removed`);
  return parts.join("; ");
}
