import { isAbsolute } from "node:path";
import {
  type AgentInfo,
  type DigestMemo,
  digestMemo,
  type FileDigest,
  type FileKey,
  type SkillMetadata,
  type SkillService,
} from "@skill/core";
import type { ServedFile } from "./handlers.js";
import type { SkillEntry } from "./protocol.js";

// What every server of one service keeps between requests, whichever connection or agent it
// answers: the SDK's HTTP entry makes a server per request (or per session), and none of them
// should walk or hash again, nor hold a copy of its own.

/** What is known of one skill's files: its walk and, once a listing built it, its entry. */
export interface Known {
  readonly skill: SkillMetadata;
  readonly files: readonly ServedFile[];
  /** The folders holding its files, as they were when `files` was walked. */
  readonly stamps: readonly FileKey[];
  /** The entry listed for it, once built with every one of `files` described. */
  entry?: SkillEntry;
  /** The digest of each of `files` the entry lists, in order. */
  digests?: readonly FileDigest[];
  /**
   * When the last check that found `entry` true began (`performance.now()`): it saw every
   * change made before then, so a request that arrived earlier may take `entry` as it is.
   */
  checkedAt?: number;
}

/** What servers of one service and one listing shape (prefix and limits) know of its skills. */
export interface View {
  /** Each skill's files and entry, by location, for the registry of `version`: shared by every agent. */
  readonly known: Map<string, Known>;
  version: number;
  /** Entries being built, by location: listings asking at once share one build. */
  readonly building: Map<
    string,
    {
      readonly skill: SkillMetadata;
      readonly entry: Promise<SkillEntry | undefined>;
      /** When the build began (`performance.now()`): only a request that arrived earlier may join it. */
      readonly startedAt: number;
    }
  >;
}

/** The skills an agent is served, for the registry of `version`. */
interface Listed {
  readonly version: number;
  readonly skills: readonly SkillMetadata[];
}

/** What every server of one service shares. */
export interface Shared {
  /** Digests of the files served, by file state (the default when `registerSkills` is given none). */
  readonly memo: DigestMemo;
  /** Views by listing shape. */
  readonly views: Map<string, View>;
  /**
   * Lists of served skills for the registry of `listsVersion`, by the names they hold: agents
   * that see the same skills share one list, whichever objects describe them.
   */
  readonly lists: Map<string, readonly SkillMetadata[]>;
  listsVersion: number;
  /** The list each agent object was last given (weakly: an agent gone takes its pointer with it). */
  readonly agents: WeakMap<AgentInfo, Listed>;
  anyAgent: Listed | undefined;
}

const sharedByService = new WeakMap<SkillService, Shared>();

export function sharedOf(service: SkillService): Shared {
  let shared = sharedByService.get(service);
  if (!shared) {
    shared = {
      memo: digestMemo(),
      views: new Map(),
      lists: new Map(),
      listsVersion: -1,
      agents: new WeakMap(),
      anyAgent: undefined,
    };
    sharedByService.set(service, shared);
  }
  return shared;
}

export function viewOf(shared: Shared, shape: string): View {
  let view = shared.views.get(shape);
  if (!view) {
    view = { known: new Map(), version: -1, building: new Map() };
    shared.views.set(shape, view);
  }
  return view;
}

/**
 * The file skills `agent` may see (`service.all(agent)` less skills that are not files), sorted
 * by name: one list per set of names for the registry's version, shared by every agent that
 * sees exactly those skills.
 */
export function servedTo(
  shared: Shared,
  service: SkillService,
  agent: AgentInfo | undefined,
): readonly SkillMetadata[] {
  const version = service.version;
  const had = agent ? shared.agents.get(agent) : shared.anyAgent;
  if (had?.version === version) return had.skills;
  if (shared.listsVersion !== version) {
    shared.lists.clear();
    shared.listsVersion = version;
  }
  const skills = service.all(agent).filter((s) => isAbsolute(s.location));
  const names = skills.map((s) => s.name).join("\n");
  let list = shared.lists.get(names);
  if (!list) {
    list = skills;
    shared.lists.set(names, list);
  }
  const listed = { version, skills: list };
  if (agent) shared.agents.set(agent, listed);
  else shared.anyAgent = listed;
  return list;
}

/** What a service's servers hold now: for tests and for a host watching its memory. */
export function catalogCacheSizes(service: SkillService): {
  readonly lists: number;
  readonly views: number;
  readonly known: number;
  readonly entries: number;
} {
  const shared = sharedByService.get(service);
  if (!shared) return { lists: 0, views: 0, known: 0, entries: 0 };
  let known = 0;
  let entries = 0;
  for (const view of shared.views.values()) {
    known += view.known.size;
    for (const k of view.known.values()) if (k.entry) entries++;
  }
  return { lists: shared.lists.size, views: shared.views.size, known, entries };
}
