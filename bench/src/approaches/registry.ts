/** Every approach a child process can run, loaded only in the child that runs it. */
export const APPROACHES = {
  "sync-floor": () => import("./sync-floor.js"),
  floor: () => import("./floor.js"),
  crawl: () => import("./crawl.js"),
  "crawl-stat": () => import("./crawl-stat.js"),
  "crawl-stat-cache": () => import("./crawl-stat-cache.js"),
  "opencode-style": () => import("./opencode-style.js"),
  ours: () => import("./ours.js"),
  warm: () => import("./warm.js"),
  "mcp-load": () => import("./mcp-load.js"),
  update: () => import("./update.js"),
  doctor: () => import("./doctor.js"),
  search: () => import("./search.js"),
  "index-floor": () => import("./index-floor.js"),
  startup: () => import("./startup.js"),
  pull: () => import("./pull.js"),
  "sequential-fetch": () => import("./sequential-fetch.js"),
  add: () => import("./add.js"),
} as const;

export type ApproachId = keyof typeof APPROACHES;

type InputOf<K extends ApproachId> = Parameters<Awaited<ReturnType<(typeof APPROACHES)[K]>>["run"]>[0];

/** One run of one approach, as the child process receives it. */
export type ChildTask = {
  [K in ApproachId]: { readonly approach: K; readonly input: InputOf<K> };
}[ApproachId];
