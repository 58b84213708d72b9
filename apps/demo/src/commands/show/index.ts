import { basename, dirname } from "node:path";
import { type LoadReport, printable, quote, SkillError, type SkillService, similarNames } from "@skill/core";
import { formatSkillContent } from "@skill/format";
import type { Context } from "../../context.js";
import { capList, displayPath, printableText } from "../../output.js";
import { createService, explicitMcpFailedInRun, loadSkills } from "../../service.js";

/** Where a skill from an MCP server is: `skill://…/<name>/SKILL.md`. */
const SKILL_SCHEME = "skill://";

/** Bundled files `show` lists by default (core's `files()` default). */
const SHOWN_FILES = 10;
/** Files counted for the note of how many more there are: all that core lists of a skill (512). */
const FILES_COUNTED = 512;

/**
 * `skill show NAME`: the block an agent receives when it loads the skill. Goes through
 * `read(name, agent)`: a skill the agent is denied is, for it, missing.
 */
export async function run(ctx: Context, name: string, options: { limit?: number }): Promise<number> {
  const service = createService(ctx);
  const report = await loadSkills(ctx, service);
  try {
    const skill = await service.read(name, ctx.agent);
    // The block lists `limit` files and says how many there are beyond them (up to the walk's own bound).
    const limit = options.limit ?? SHOWN_FILES;
    const found = await service.files(name, ctx.agent, { limit: Math.max(limit, FILES_COUNTED) });
    const files = found.slice(0, limit);
    const block = formatSkillContent(skill, { files: found, limit });
    if (found.length >= FILES_COUNTED && !ctx.out.json) {
      // The listing stops there: more files may sit beyond it, unseen by it (an audit reads them all).
      ctx.out.error(
        printable(
          `skill: note: ${FILES_COUNTED} files are listed at most, and this skill has that many or more; \`skill audit ${name}\` reads them all`,
        ),
      );
    }
    if (ctx.out.json) {
      ctx.out.data({
        name: skill.name,
        description: skill.description,
        location: skill.location,
        source: skill.source,
        access: service.access(name, ctx.agent),
        files,
        content: block,
      });
    } else {
      // Terminal escapes in a body must not drive the terminal; --json gives the exact bytes.
      ctx.out.line(printableText(block));
    }
    return 0;
  } catch (error) {
    if (
      SkillError.isInstance(error) &&
      error.code === "NOT_FOUND" &&
      service.get(name, ctx.agent) === undefined
    ) {
      // An MCP server to blame: its cause alone, not "not found" and a list after it.
      const cause = serverCause(name, report, ctx);
      if (cause === "said") return 1;
      if (cause) throw cause;
    }
    if (SkillError.isInstance(error) && error.code === "NOT_FOUND") {
      const message =
        service.get(name, ctx.agent) === undefined
          ? missingMessage(
              name,
              service.all(ctx.agent).map((s) => s.name),
              ctx.out.verbose,
            )
          : error.message;
      // No cause: this message replaces core's, whose stack --verbose would print again.
      throw new SkillError("NOT_FOUND", withFailure(message, name, report, service, ctx));
    }
    const origin = service.get(name, ctx.agent)?.origin;
    if (SkillError.isInstance(error) && error.code === "INTEGRITY_ERROR" && origin?.startsWith("remote:")) {
      // A cached remote skill whose bytes changed on disk: refused (core said why), never shown.
      throw new SkillError(
        "INTEGRITY_ERROR",
        `${error.message}\nIts cached copy changed since it was pulled: \`skill verify\` lists what changed, \`skill pull\` restores it.`,
      );
    }
    throw error;
  }
}

/** A catalog this small is listed whole when a name is missing; a bigger one is searched. */
const LISTED = 10;

/**
 * What `show` says of a name no visible skill has: the few similar names and a pointer to
 * `skill search`; the names themselves only for a small catalog (or with --verbose), never a
 * screen of arbitrary ones.
 */
function missingMessage(name: string, visible: readonly string[], verbose: boolean): string {
  const similar = similarNames(name, visible).slice(0, 3);
  const search = `\`skill search ${quote(name)}\` finds skills by what they do`;
  if (verbose) return `Skill ${quote(name)} not found. Available skills: ${capList(visible, true)}`;
  if (similar.length > 0)
    return `Skill ${quote(name)} not found. Did you mean ${similar.map((n) => quote(n)).join(", ")}? ${search}.`;
  if (visible.length <= LISTED)
    return `Skill ${quote(name)} not found. Available skills: ${capList(visible, false)}`;
  return `Skill ${quote(name)} not found, and none of the ${visible.length} skills here has a similar name. ${search}; \`skill list\` shows them all.`;
}

/**
 * Why a skill is missing when an MCP server is to blame: the skill a server listed under that
 * name failed to load (its URI ends in the name: that is the skill, not a guess), or `"said"`
 * when a server asked for with `--mcp` gave no skills (stderr already says why). Never for a
 * name the agent is denied, which must read as missing.
 */
function serverCause(name: string, report: LoadReport, ctx: Context): SkillError | "said" | undefined {
  if (ctx.denied(name)) return undefined;
  const failure = report.failed.find(
    (f) => f.path.startsWith(SKILL_SCHEME) && basename(dirname(f.path)) === name,
  );
  if (failure) return new SkillError(failure.error.code, failure.error.message, { cause: failure.error });
  return explicitMcpFailedInRun() ? "said" : undefined;
}

/**
 * A skill that failed to load has no name to look up; a failed SKILL.md in a folder of the
 * name asked for is most likely it, so say why it failed. Never for a name the agent is denied.
 */
function withFailure(
  message: string,
  name: string,
  report: LoadReport,
  service: SkillService,
  ctx: Context,
): string {
  if (service.get(name) !== undefined) return message; // it exists: this is "changed on disk"
  const failure = report.failed.find((f) => basename(dirname(f.path)) === name);
  if (!failure || ctx.denied(name)) return message;
  return `${message}\n${printable(displayPath(failure.path, ctx.cwd, ctx.home))} may be it, but it failed to load: ${printable(failure.error.message)}`;
}
