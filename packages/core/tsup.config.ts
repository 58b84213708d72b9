import { defineConfig } from "tsup";

export default defineConfig({
  entry: ["src/index.ts"],
  format: ["esm", "cjs"],
  dts: true,
  clean: true,
  target: "node20",
  // import.meta.url in the CommonJS build too (js-yaml is required lazily).
  shims: true,
});
