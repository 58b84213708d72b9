import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { demoModel, runHarness } from "./harness.js";

const here = fileURLToPath(new URL(".", import.meta.url));
const project = `${here}project`;
const home = `${here}home`;

/** What the model received from each tool call, in order. */
function received(steps: Awaited<ReturnType<typeof runHarness>>["steps"]): string[] {
  return steps.flatMap((s) => s.toolResults.map((r) => (r.output as { text: string }).text));
}

describe("examples/harness.ts on the bundled examples", { timeout: 30_000 }, () => {
  it("the model loads pdf-tools, and release-notes once the user allows it", async () => {
    const asked: string[] = [];
    const { text, steps, report, tools } = await runHarness({
      cwd: project,
      home,
      model: demoModel(),
      prompt: "Fill in the PDF form, then draft the release notes.",
      confirm: async (skill) => {
        asked.push(skill.name);
        return true;
      },
    });
    expect(report.failed.map((f) => f.path)).toEqual([expect.stringContaining("broken")]);
    expect(asked).toEqual(["release-notes"]);
    const [pdf, notes] = received(steps);
    expect(pdf).toMatch(/^<skill_content name="pdf-tools">\n# Skill: pdf-tools\n/);
    expect(pdf).toContain("<file>");
    expect(notes).toMatch(/^<skill_content name="release-notes">/);
    expect(text).toBe("Filled the form with pdf-tools and drafted the release notes.");
    // The pinned skill keeps its description; the catalog is what the skill tool describes.
    expect(tools.definitions[0]?.description).toContain("<name>commit-messages</name>\n    <description>");
  });

  it("without a way to ask the user, the ask skill is refused in words the model can act on", async () => {
    const { steps } = await runHarness({
      cwd: project,
      home,
      model: demoModel(),
      prompt: "Draft the release notes.",
    });
    expect(received(steps)[1]).toMatch(
      /^The skill "release-notes" may only be loaded with the user's permission/,
    );
  });

  it("runs as a script (pnpm --filter @skill/examples harness)", { tags: ["slow"] }, async () => {
    const tsx = createRequire(import.meta.url).resolve("tsx/cli");
    const child = spawn(process.execPath, [tsx, "harness.ts"], {
      cwd: here,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, NO_COLOR: "1" },
    });
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
    });
    child.stderr.on("data", (d) => {
      out += d;
    });
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(out).toContain('model calls skill {"name":"pdf-tools"}');
    expect(out).toContain('  → <skill_content name="pdf-tools">');
    expect(out).toContain('(the user is asked to allow "release-notes" and says yes)');
    expect(out).toMatch(/\d+ skills loaded, 1 failed; the model said: Filled the form/);
    expect(code).toBe(0);
  });
});
