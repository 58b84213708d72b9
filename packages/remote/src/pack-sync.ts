import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { compareCodeUnits, formatBytes } from "@skill/core";
import { preloadArchiveReaders } from "./archive.js";
import { type PackState, presentFiles, type SkillState, table } from "./cache-state.js";
import { commit, discard } from "./commit.js";
import { damagedList, type Outcome, type PullContext, syncSkill } from "./download.js";
import { type FetchLike, fetchAborted } from "./http.js";
import type { IndexAnswer } from "./index-fetch.js";
import { checkManifest, type RemoteSkillEntry, type SkippedSkill } from "./manifest.js";
import { KEPT, type PullResult, type Settings } from "./options.js";

let limiter: Promise<typeof import("p-limit")> | undefined;

/** p-limit, loaded once. */
export function loadLimiter(): Promise<typeof import("p-limit")> {
  limiter ??= import("p-limit").catch((error: unknown) => {
    limiter = undefined;
    throw error;
  });
  return limiter;
}

/** The entries a pull requests, and those `maxPackFiles` left out. */
interface Capped {
  readonly keep: RemoteSkillEntry[];
  readonly over: SkippedSkill[];
  /** Files the kept entries list. */
  readonly count: number;
}

/** One pull of one pack, under its lock: stage every skill, then commit them together. */
export class PackSync {
  readonly #pullId = randomBytes(4).toString("hex");

  constructor(
    readonly url: string,
    readonly answer: IndexAnswer,
    readonly packDir: string,
    readonly state: PackState | undefined,
    readonly fetch: FetchLike,
    readonly settings: Settings,
    readonly signal: AbortSignal,
  ) {}

  /** Entries past `maxPackFiles` are skipped before anything is requested. */
  #capFiles(skills: readonly RemoteSkillEntry[]): Capped {
    const keep: RemoteSkillEntry[] = [];
    const over: SkippedSkill[] = [];
    let count = 0;
    for (const entry of skills) {
      const n = entry.files?.length ?? 1;
      if (count + n > this.settings.maxPackFiles) {
        over.push({
          name: entry.name,
          code: "LIMIT_EXCEEDED",
          reason: `the pack lists more than ${this.settings.maxPackFiles} files (maxPackFiles); this skill is past the limit`,
        });
        continue;
      }
      count += n;
      keep.push(entry);
    }
    return { keep, over, count };
  }

  /**
   * The entries skipped before any request, each with its reason, and the earlier copies kept
   * for them: an entry that is listed but invalid now keeps the copy an earlier, valid index
   * brought.
   */
  async #skippedEntries(
    refused: readonly SkippedSkill[],
    listed: ReadonlySet<string>,
    capped: Capped,
  ): Promise<{ invalid: SkippedSkill[]; keptInvalid: Record<string, SkillState> }> {
    const keptInvalid = table<SkillState>();
    const valid = new Set(capped.keep.map((e) => e.name));
    for (const s of [...refused, ...capped.over]) {
      const previous = this.state?.skills[s.name];
      if (!previous || !listed.has(s.name) || valid.has(s.name)) continue;
      const files = Object.keys(previous.files);
      if ((await presentFiles(join(this.packDir, s.name), files)).size === files.length)
        keptInvalid[s.name] = previous;
    }
    const invalid = [...refused, ...capped.over].map((s) =>
      keptInvalid[s.name] ? { ...s, reason: `${s.reason}${KEPT}` } : s,
    );
    return { invalid, keptInvalid };
  }

  /** Brings every kept entry to a staged, unchanged or failed outcome, as many at once as allowed. */
  async #download(capped: Capped, indexUrl: string): Promise<{ outcomes: Outcome[]; ctx: PullContext }> {
    const { settings } = this;
    // Archives whose digest the cache does not hold yet will be downloaded: their reader loads now.
    const archives = capped.keep.filter(
      (e) =>
        e.type === "archive" && e.digest !== undefined && this.state?.skills[e.name]?.digest !== e.digest,
    );
    if (archives.length > 0) preloadArchiveReaders(archives.map((e) => e.url ?? ""));
    const { default: pLimit } = await loadLimiter();
    const skillLimit = pLimit(settings.concurrency);
    // A digest-pinned skill is one request, then an unpack that needs no request slot: twice as
    // many of them in progress keep the slots busy (`limit` below still caps the requests).
    const pinnedLimit = pLimit(settings.concurrency * 2);
    const ctx: PullContext = {
      base: new URL(".", indexUrl),
      indexUrl,
      packDir: this.packDir,
      fetch: this.fetch,
      settings,
      signal: this.signal,
      budget: { used: 0, limit: settings.maxTotalBytes },
      packFiles: { count: capped.count },
      limit: pLimit(settings.concurrency),
    };
    const outcomes: Outcome[] = await Promise.all(
      capped.keep.map((entry) =>
        (entry.digest === undefined ? skillLimit : pinnedLimit)(() =>
          syncSkill(ctx, entry, this.state?.skills[entry.name]),
        ),
      ),
    );
    return { outcomes, ctx };
  }

  /** The state of every skill the cache will hold, and the skills that failed. */
  #settle(
    outcomes: readonly Outcome[],
    keptInvalid: Record<string, SkillState>,
  ): { skills: Record<string, SkillState>; failed: SkippedSkill[] } {
    const skills = Object.assign(table<SkillState>(), keptInvalid);
    const failed: SkippedSkill[] = [];
    for (const o of outcomes) {
      if (o.kind !== "failed") skills[o.entry.name] = o.state;
      else {
        if (o.kept) skills[o.entry.name] = o.kept;
        failed.push({
          name: o.entry.name,
          reason: `${o.error.message}${o.kept ? KEPT : ""}`,
          code: o.error.code,
        });
      }
    }
    return { skills, failed };
  }

  /** Puts the staged skills in place with the pack's new state; the names of the skills removed. */
  #commit(outcomes: readonly Outcome[], listed: ReadonlySet<string>, skills: Record<string, SkillState>) {
    const { answer } = this;
    const now = new Date().toISOString();
    const index = answer.notModified
      ? this.state?.index
      : {
          url: answer.url,
          ...(answer.etag === undefined ? {} : { etag: answer.etag }),
          ...(answer.lastModified === undefined ? {} : { lastModified: answer.lastModified }),
        };
    const state: PackState = {
      format: 1,
      url: this.url,
      pullId: this.#pullId,
      pulledAt: now,
      checkedAt: now,
      ...(index ? { index } : {}),
      skills,
    };
    return commit(this.packDir, outcomes, listed, state, answer.notModified ? undefined : answer.text);
  }

  /** Tells the logger what was skipped, how much was pulled, and which cached copies were restored. */
  #report(skipped: readonly SkippedSkill[], total: number, outcomes: readonly Outcome[], used: number): void {
    const { settings, packDir } = this;
    const indexUrl = this.answer.url;
    if (skipped.length > 0) {
      const first = skipped[0] as SkippedSkill;
      settings.logger.warn(
        `Skill pack ${indexUrl}: skipped ${skipped.length} of ${total} skills (first: ${first.name}: ${first.reason})`,
        { url: indexUrl, code: first.code },
      );
      for (const s of skipped)
        settings.logger.debug?.(`Skipped skill ${s.name}: ${s.reason}`, { code: s.code });
    }
    if (used > 0) settings.logger.debug?.(`Pulled ${formatBytes(used)} from ${indexUrl}`);
    for (const o of outcomes) {
      if (o.kind !== "staged" || !o.restored) continue;
      settings.logger.warn(
        `Skill pack ${indexUrl}: restored ${o.entry.name}, whose cached copy no longer matched what was pulled (${damagedList(o.restored)})`,
        { url: indexUrl, code: "INTEGRITY_ERROR", name: o.entry.name, path: join(packDir, o.entry.name) },
      );
    }
  }

  /** The skills this pull changed, by name: staged (with what they replaced) and removed. */
  #changed(outcomes: readonly Outcome[], removed: readonly string[]): PullResult["changed"] {
    const skillMd = (name: string) => join(this.packDir, name, "SKILL.md");
    return [
      ...outcomes
        .filter((o) => o.kind === "staged")
        .map((o) => ({
          name: o.entry.name,
          ...(this.state?.skills[o.entry.name] ? { before: skillMd(o.entry.name) } : {}),
          after: skillMd(o.entry.name),
          ...(o.restored ? { restored: o.restored } : {}),
        })),
      ...removed.map((name) => ({ name, before: skillMd(name) })),
    ].sort((a, b) => compareCodeUnits(a.name, b.name));
  }

  async run(value: unknown): Promise<PullResult> {
    const { settings, packDir } = this;
    const indexUrl = this.answer.url;
    const checked = checkManifest(value);
    const { manifest, listed } = checked;
    const capped = this.#capFiles(manifest.skills);
    const { invalid, keptInvalid } = await this.#skippedEntries(checked.skipped, listed, capped);
    settings.emit({
      type: "index",
      url: indexUrl,
      skills: capped.keep.length,
      files: capped.keep.reduce((n, s) => n + (s.files?.length ?? 1), 0),
      skipped: invalid.length,
    });
    for (const s of invalid)
      settings.emit({ type: "skill", name: s.name, status: "skipped", reason: s.reason });

    const { outcomes, ctx } = await this.#download(capped, indexUrl);
    if (this.signal.aborted) {
      await discard(outcomes);
      throw fetchAborted(this.signal);
    }
    const { skills, failed } = this.#settle(outcomes, keptInvalid);
    const removed = await this.#commit(outcomes, listed, skills);
    for (const name of removed) settings.emit({ type: "skill", name, status: "removed" });

    const skipped = [...invalid, ...failed];
    this.#report(skipped, manifest.skills.length + checked.skipped.length, outcomes, ctx.budget.used);
    const changed = this.#changed(outcomes, removed);
    const files = Object.keys(skills)
      .map((name) => join(packDir, name, "SKILL.md"))
      .sort(compareCodeUnits);
    return { files, skipped, fromCache: false, dir: packDir, indexUrl, changed };
  }
}
