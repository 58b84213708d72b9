import { defineConfig } from "tsup";

// One bundle (workspace packages and libraries included), split where the CLI imports lazily:
// a command pays at start-up only for the modules it uses.
export default defineConfig({
  entry: ["src/cli.ts"],
  format: ["esm"],
  clean: true,
  target: "node20",
  splitting: true,
  noExternal: [/.*/],
  banner: {
    js: "import { createRequire as __skillRequire } from 'node:module'; const require = __skillRequire(import.meta.url);",
  },
});
