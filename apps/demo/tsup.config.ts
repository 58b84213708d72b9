import { defineConfig, type Options } from "tsup";

type Plugin = NonNullable<Options["esbuildPlugins"]>[number];

/**
 * Built-in modules that a bundled library imports when it loads but `skill list` never uses:
 * commander requires `child_process` (and `dgram` with it) for subcommands that are separate
 * executables, which `skill` has none of; `@skill/core` imports `crypto` for the digests of
 * skills from remote packs and MCP servers, and for temporary file names. Imports from those
 * libraries get a stand-in that loads the module on first use (`process.getBuiltinModule`, Node
 * 20.16+). A name the stand-in does not export fails the build, never a run.
 */
const LAZY_BUILTINS: readonly { module: string; importer: RegExp; contents: string; loader: "js" }[] = [
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
];

const lazyBuiltins: Plugin = {
  name: "lazy-builtins",
  setup(build) {
    for (const lazy of LAZY_BUILTINS) {
      const filter = new RegExp(`^(node:)?${lazy.module}$`);
      build.onResolve({ filter }, (args) =>
        lazy.importer.test(args.importer) ? { path: lazy.module, namespace: "lazy-builtin" } : undefined,
      );
    }
    build.onLoad({ filter: /.*/, namespace: "lazy-builtin" }, (args) => {
      const lazy = LAZY_BUILTINS.find((l) => l.module === args.path);
      return lazy ? { contents: lazy.contents, loader: lazy.loader } : undefined;
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
  // Keep `node:` in imports, so that lazyBuiltins sees commander's `node:child_process`.
  removeNodeProtocol: false,
  esbuildPlugins: [lazyBuiltins],
  banner: {
    js: "import { createRequire as __skillRequire } from 'node:module'; const require = __skillRequire(import.meta.url);",
  },
});
