import { defineConfig } from "vitest/config";

// The AI SDK adapter is tested against both majors the peer range names: `ai` 6 (the
// devDependency) and `ai` 7 (installed as `ai-v7`), the latter by resolving `ai` to it.
export default defineConfig({
  test: {
    projects: [
      { extends: true, test: { name: "tool", include: ["src/**/*.test.ts"], env: { AI_MAJOR: "6" } } },
      {
        extends: true,
        test: { name: "ai-7", include: ["src/ai-sdk.test.ts"], env: { AI_MAJOR: "7" } },
        resolve: {
          alias: [
            { find: /^ai$/, replacement: "ai-v7" },
            { find: /^ai\/test$/, replacement: "ai-v7/test" },
          ],
        },
      },
    ],
  },
});
