import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { demoModel } from "./harness.js";
import { agentTurn } from "./readme-harness.js";

const here = fileURLToPath(new URL(".", import.meta.url));

describe("the README's 'In a harness' block", { timeout: 30_000 }, () => {
  it("is examples/readme-harness.ts, word for word", async () => {
    const readme = await readFile(`${here}../README.md`, "utf8");
    const section = readme.slice(readme.indexOf("## In a harness"));
    const block = /```ts\n([\s\S]*?)```\n/.exec(section)?.[1];
    expect(block).toBe(await readFile(`${here}readme-harness.ts`, "utf8"));
  });

  it("runs as pasted: the model loads skills of the project it runs in, asking for an ask skill", async () => {
    const asked: string[] = [];
    const cwd = process.cwd();
    // The block reads the real environment, as a harness would: give it the examples' home and
    // none of the caller's agent variables.
    const saved = { ...process.env };
    for (const key of Object.keys(process.env))
      if (key.startsWith("OPENCODE_") || key.startsWith("CLAUDE_")) delete process.env[key];
    process.env.HOME = `${here}home`;
    process.chdir(`${here}project`);
    try {
      const result = await agentTurn(
        demoModel(),
        "Fill in the PDF form, then draft the release notes.",
        async (q) => {
          asked.push(q);
          return true;
        },
      );
      expect(asked).toEqual(["Load the skill release-notes?"]);
      expect(result.text).toBe("Filled the form with pdf-tools and drafted the release notes.");
      expect(result.failed.map((f) => f.path)).toEqual([expect.stringContaining("broken")]);
    } finally {
      process.chdir(cwd);
      for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
      Object.assign(process.env, saved);
    }
  });
});
