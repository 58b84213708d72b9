// Every approach a child can run, by id; a module (approaches with the same dependencies) loads
// only in the child that runs one of them.
export const APPROACHES = {
  "sync-floor": async () => (await import("./floors.js")).syncFloor,
  "crawl-stat": async () => (await import("./floors.js")).crawlStat,
  "opencode-style": async () => (await import("./opencode.js")).run,
  ours: async () => (await import("./ours.js")).ours,
  warm: async () => (await import("./ours.js")).warm,
  doctor: async () => (await import("./ours.js")).doctor,
  update: async () => (await import("./update.js")).run,
  "mcp-load": async () => (await import("./mcp-load.js")).run,
  "mcp-http": async () => (await import("./mcp-http.js")).run,
  search: async () => (await import("./search.js")).run,
  "search-summaries": async () => (await import("./search.js")).buildWithSummaries,
  "index-floor": async () => (await import("./index-floor.js")).run,
  spawn: async () => (await import("./spawn.js")).run,
  pull: async () => (await import("./pull.js")).run,
} as const;

type Id = keyof typeof APPROACHES;

export type ChildTask = {
  [K in Id]: { approach: K; input: Parameters<Awaited<ReturnType<(typeof APPROACHES)[K]>>>[0] };
}[Id];
