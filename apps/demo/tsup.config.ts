import { defineConfig, type Options } from "tsup";

/**
 * commander requires `node:child_process` (and with it `net`, `dgram` and their streams) when
 * it loads, for subcommands that are separate executables, which `skill` has none of: its
 * `require` gets a stand-in that loads the module on first use.
 */
const lazyChildProcess: NonNullable<Options["esbuildPlugins"]>[number] = {
  name: "lazy-child-process",
  setup(build) {
    build.onResolve({ filter: /^(node:)?child_process$/ }, (args) =>
      /[\\/]commander[\\/]/.test(args.importer)
        ? { path: "child_process", namespace: "lazy-child-process" }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "lazy-child-process" }, () => ({
      contents: `module.exports = new Proxy({}, { get: (_, key) => require("node:child_process")[key] });`,
      loader: "js",
    }));
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
  // Keep `node:` in imports, so that lazyChildProcess sees commander's `node:child_process`.
  removeNodeProtocol: false,
  esbuildPlugins: [lazyChildProcess],
  banner: {
    js: "import { createRequire as __skillRequire } from 'node:module'; const require = __skillRequire(import.meta.url);",
  },
});
