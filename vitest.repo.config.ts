import { defineConfig } from "vitest/config";

// The repository's own tests, over every package at once (the architecture of the house);
// each package runs its own tests with its own `vitest run`.
export default defineConfig({
  test: { include: ["tests/**/*.test.ts"] },
});
