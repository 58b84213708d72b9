import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: [
      "harness.test.ts",
      "readme-blocks.test.ts",
      "readme-harness.test.ts",
      "search-at-scale.test.ts",
    ],
  },
});
