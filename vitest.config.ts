import { existsSync, readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { type Alias, defineConfig, type TestProjectInlineConfiguration } from "vitest/config";

// One config for every test of the repository: a project per workspace package (and the
// repository's own `tests/`, the architecture of the house), and the `slow` tag.
//
// `verify` runs each package's project on its own (`vitest run --project <name>` in the
// package, through turbo, after the build): siblings resolve to their built `dist`, as a user
// gets them. `pnpm test:fast` runs every project at once with `--mode src` and without the
// slow tests: siblings resolve to their `src/`, so an edit to core needs no rebuild.

const at = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/** The workspace folders with tests, as the projects' roots. */
const WORKSPACES = [
  "packages/audit",
  "packages/core",
  "packages/discovery",
  "packages/format",
  "packages/install",
  "packages/lock",
  "packages/mcp",
  "packages/permissions",
  "packages/remote",
  "packages/search",
  "packages/tool",
  "apps/demo",
  "bench",
  "examples",
];

interface Manifest {
  readonly name: string;
  readonly exports?: Record<string, unknown>;
}

const manifest = (dir: string): Manifest =>
  JSON.parse(readFileSync(at(`${dir}/package.json`), "utf8")) as Manifest;

/**
 * `@skill/<name>` and each of its subpaths (`@skill/mcp/stdio`) → the source its build starts
 * from, read off the package's exports: `./dist/<entry>.js` is built from `./src/<entry>.ts`.
 */
function sourceAliases(): Alias[] {
  const aliases: Alias[] = [];
  for (const dir of WORKSPACES.filter((d) => d.startsWith("packages/"))) {
    const { name, exports = {} } = manifest(dir);
    for (const [subpath, target] of Object.entries(exports)) {
      const built = JSON.stringify(target).match(/"\.\/dist\/([^"]+)\.js"/)?.[1];
      if (built === undefined) continue;
      const source = at(`${dir}/src/${built}.ts`);
      if (!existsSync(source)) throw new Error(`${name}: no ${dir}/src/${built}.ts for ${subpath}`);
      const specifier = subpath === "." ? name : `${name}/${subpath.slice(2)}`;
      aliases.push({ find: new RegExp(`^${specifier.replace(/[/.]/g, "\\$&")}$`), replacement: source });
    }
  }
  return aliases;
}

/** Per-project settings beyond the defaults (every `*.test.ts` under the project's folder). */
const SETTINGS: Record<string, Partial<TestProjectInlineConfiguration["test"]>> = {
  examples: {
    include: [
      "harness.test.ts",
      "readme-blocks.test.ts",
      "readme-harness.test.ts",
      "search-at-scale.test.ts",
    ],
  },
  // The AI SDK adapter is tested against both majors the peer range names: `ai` 6 (the
  // devDependency) and `ai` 7 (installed as `ai-v7`), the latter by resolving `ai` to it.
  "packages/tool": { env: { AI_MAJOR: "6" } },
};

function projects(fast: boolean): TestProjectInlineConfiguration[] {
  const out: TestProjectInlineConfiguration[] = WORKSPACES.map((dir) => ({
    extends: true,
    root: at(dir),
    test: { name: manifest(dir).name, ...SETTINGS[dir] },
  }));
  out.push(
    {
      extends: true,
      root: at("packages/tool"),
      test: { name: "@skill/tool:ai-7", include: ["src/ai-sdk.test.ts"], env: { AI_MAJOR: "7" } },
      resolve: {
        alias: [
          { find: /^ai$/, replacement: "ai-v7" },
          { find: /^ai\/test$/, replacement: "ai-v7/test" },
        ],
      },
    },
    // The repository's own tests: the architecture of the house, over every package at once.
    { extends: true, root: at("."), test: { name: "repository", include: ["tests/**/*.test.ts"] } },
  );
  // A project's isolation and aliases are its own settings: the root's do not reach it.
  const aliases = fast ? sourceAliases() : [];
  for (const project of out) {
    project.test = { ...project.test, isolate: !fast };
    const own = (project.resolve?.alias ?? []) as Alias[];
    project.resolve = { ...project.resolve, alias: [...own, ...aliases] };
  }
  return out;
}

export default defineConfig(({ mode }) => ({
  test: {
    tags: [
      {
        name: "slow",
        description:
          "starts a child process (the built CLI or package, a server, git, mkfifo), runs as another " +
          "user, builds hostile scale (thousands of files or folders, large archives, thousands of " +
          "random cases) or waits out real timers (stalls, timeouts, debounced watchers)",
      },
      {
        name: "built",
        description: "loads the package's build (dist/), as a user gets it",
      },
    ],
    // A loaded two-core CI machine runs two packages at once, each with its workers: a test that
    // spawns the CLI can take several seconds there. A hung test still fails, after 20 s.
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Fails a test that starts a child process without the slow tag (test-utils/src/slow-guard.ts).
    setupFiles: [at("test-utils/src/slow-guard.ts")],
    provide: { fastLoop: mode === "src" },
    // The fast loop's tests wait on the filesystem more than on the CPU: one worker more than
    // the cores (vitest's default is one fewer) took it from 104 to 62 s on two cores. And there
    // a worker keeps the modules it imported for its next file (`isolate: false` per project):
    // importing the shared sources again for each of ~150 files was most of the rest (62 → 38 s).
    // `verify` still isolates every file; no test keeps state between files that tells them apart.
    ...(mode === "src" ? { maxWorkers: availableParallelism() + 1 } : {}),
    projects: projects(mode === "src"),
  },
}));
