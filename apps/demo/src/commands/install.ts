import { compareCodeUnits, printable } from "@skill/core";
import { computedHash } from "@skill/lock";
import { type Context, remoteUse } from "../context.js";
import { UserError } from "../errors.js";
import { type LockedSkill, ScopeLock } from "../install.js";
import { displayPath } from "../output.js";
import { applyPlacement, type Placed, type PlacementPlan, planPlacement } from "../place.js";
import { FetchSession, fetchLocked } from "../upstream.js";
import { checkAgents, chosenAgents, type InstallFlags, report, scopeOf } from "./add.js";

export interface RestoreFlags extends InstallFlags {
  readonly frozen?: boolean;
}

/**
 * `skill install [--frozen]`: every locked skill back into its folder and each agent's,
 * from the source and ref the lock names, refusing bytes that do not hash to the lock.
 */
export async function install(ctx: Context, flags: RestoreFlags): Promise<number> {
  const scope = scopeOf(ctx, flags);
  const lock = await ScopeLock.load(scope);
  const show = (p: string) => displayPath(p, ctx.cwd, ctx.home);
  if (lock.original === undefined) {
    throw new UserError(`Nothing to install: ${show(lock.file)} does not exist (skill add writes it)`);
  }
  const formatted = await lock.text();
  if (flags.frozen && formatted !== lock.original) {
    throw new UserError(
      `--frozen: ${show(lock.file)} would change (it is not in the form skill writes: sorted, 2-space JSON); run skill install without --frozen and commit the result`,
    );
  }
  const agents = await chosenAgents(scope, flags);
  const session = new FetchSession();
  try {
    const problems: string[] = [];
    const plans: PlacementPlan[] = [];
    for (const name of lock.names().sort(compareCodeUnits)) {
      const skill = lock.get(name) as LockedSkill;
      let from: string;
      let hash: string;
      try {
        const fetched = await fetchLocked(lock.file, scope.global, skill, ctx.env, remoteUse(ctx), session);
        // A site serves one version: the lock pins it by the index's digest.
        if (skill.wellKnownDigest !== undefined && fetched.digest !== skill.wellKnownDigest) {
          problems.push(
            `${printable(name)}: ${printable(skill.sourceUrl ?? skill.source)} now serves ${fetched.digest === undefined ? "it without a digest" : printable(fetched.digest.slice(0, 19))}…, ${show(lock.file)} pins ${printable(skill.wellKnownDigest.slice(0, 19))}… (skill update takes the new version)`,
          );
          continue;
        }
        from = fetched.dir;
        hash = await computedHash(from);
      } catch (error) {
        problems.push(`${printable(name)}: ${(error as Error).message}`);
        continue;
      }
      if (skill.hash === undefined) {
        problems.push(
          `${printable(name)}: ${show(lock.file)} holds no hash of its files to check them against`,
        );
        continue;
      }
      if (hash !== skill.hash) {
        problems.push(
          `${printable(name)}: the files of ${printable(skill.source)}${skill.ref ? `#${printable(skill.ref)}` : ""} hash to ${hash.slice(0, 12)}…, ${show(lock.file)} says ${printable(skill.hash.slice(0, 12))}…`,
        );
        continue;
      }
      const plan = await planPlacement(
        scope,
        lock,
        { skill: name, from, hash, agents, copy: flags.copy === true, force: flags.force === true },
        show,
      );
      problems.push(...plan.blocked.map((b) => `${printable(name)}: ${b}`));
      plans.push(plan);
    }
    if (problems.length > 0) {
      throw new UserError(
        `Not installing: ${problems.join("; ")}. Nothing was changed${plans.some((p) => p.blocked.length > 0) ? "; --force replaces what is in the way" : ""}`,
      );
    }
    const done: { plan: PlacementPlan; placed: Placed; source: string }[] = [];
    for (const plan of plans) {
      const skill = lock.get(plan.placement.skill) as LockedSkill;
      done.push({
        plan,
        placed: await applyPlacement(plan),
        source: `${skill.source}${skill.ref ? `#${skill.ref}` : ""}`,
      });
    }
    if (formatted !== lock.original) await lock.save();
    const verdicts = await checkAgents(
      ctx,
      agents,
      done.map(({ plan }) => ({ skill: plan.placement.skill, dir: plan.canonical })),
    );
    const json = report(ctx, done, verdicts, lock.file);
    if (json !== undefined) ctx.out.data(json);
    return 0;
  } finally {
    await session.close();
  }
}
