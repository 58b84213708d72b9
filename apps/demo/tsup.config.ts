import { fileURLToPath } from "node:url";
import { defineConfig, type Options } from "tsup";

type Plugin = NonNullable<Options["esbuildPlugins"]>[number];

/**
 * Modules that a bundled library imports when it loads but `skill list` does not use: commander
 * requires `child_process` (and `dgram` with it) for subcommands that are separate executables,
 * which `skill` has none of; `@skill/core` imports `crypto` for the digests of skills from
 * remote packs and MCP servers and for temporary file names, and js-yaml for frontmatter its own
 * reader declines. Imports from those libraries get a stand-in that loads the module on first
 * use: a built-in through `process.getBuiltinModule` (Node 20.16+), js-yaml through a `require`
 * that esbuild bundles (it keeps a CommonJS module unevaluated until it is required). A name a
 * stand-in does not export fails the build, never a run.
 */
const LAZY_MODULES: readonly {
  module: string;
  importer: RegExp;
  contents: string;
  loader: "js";
  /** Where the stand-in's own `require` resolves from (for a bundled library). */
  resolveDir?: string;
}[] = [
  {
    module: "child_process",
    importer: /[\\/]commander[\\/]/,
    contents: `module.exports = new Proxy({}, { get: (_, key) => process.getBuiltinModule("node:child_process")[key] });`,
    loader: "js",
  },
  {
    module: "crypto",
    importer: /[\\/]packages[\\/]core[\\/]dist[\\/]/,
    contents: [
      `const builtin = () => process.getBuiltinModule("node:crypto");`,
      `export const createHash = (...args) => builtin().createHash(...args);`,
      `export const randomBytes = (...args) => builtin().randomBytes(...args);`,
    ].join("\n"),
    loader: "js",
  },
  {
    // js-yaml 3: @skill/core calls only `safeLoad`.
    module: "js-yaml",
    importer: /[\\/]packages[\\/]core[\\/]dist[\\/]/,
    contents: [
      `let yaml;`,
      `export default { safeLoad: (...args) => (yaml ??= require("js-yaml")).safeLoad(...args) };`,
    ].join("\n"),
    loader: "js",
    resolveDir: fileURLToPath(new URL("../../packages/core", import.meta.url)),
  },
];

const lazyModules: Plugin = {
  name: "lazy-modules",
  setup(build) {
    for (const lazy of LAZY_MODULES) {
      const filter = new RegExp(`^(node:)?${lazy.module}$`);
      build.onResolve({ filter }, (args) =>
        lazy.importer.test(args.importer) ? { path: lazy.module, namespace: "lazy" } : undefined,
      );
    }
    build.onLoad({ filter: /.*/, namespace: "lazy" }, (args) => {
      const lazy = LAZY_MODULES.find((l) => l.module === args.path);
      if (!lazy) return undefined;
      return {
        contents: lazy.contents,
        loader: lazy.loader,
        ...(lazy.resolveDir ? { resolveDir: lazy.resolveDir } : {}),
      };
    });
  },
};

// One bundle (workspace packages and libraries included), split where the CLI imports lazily:
// a command pays at start-up only for the modules it uses. dist/cli.js is src/bin.ts, which
// turns on Node's compile cache (where there is one) before it imports the CLI.
export default defineConfig({
  entry: { cli: "src/bin.ts" },
  format: ["esm"],
  clean: true,
  target: "node20",
  splitting: true,
  noExternal: [/.*/],
  // Keep `node:` in imports, so that lazyModules sees commander's `node:child_process`.
  removeNodeProtocol: false,
  esbuildPlugins: [lazyModules],
  banner: {
    js: "import { createRequire as __skillRequire } from 'node:module'; const require = __skillRequire(import.meta.url);",
  },
});
