import { defineConfig } from "tsup";

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
  banner: {
    js: "import { createRequire as __skillRequire } from 'node:module'; const require = __skillRequire(import.meta.url);",
  },
});
