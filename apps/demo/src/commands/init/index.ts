import { lstat } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { printable, stageSkillFolder, validateFrontmatter, validateSkillFile } from "@skill/core";
import type { Context } from "../../context.js";
import { UsageError, UserError } from "../../errors.js";
import { displayPath } from "../../output.js";
import { projectRoot } from "../../project-root.js";

const PLACEHOLDER = "Describe what this skill does and when an agent should use it.";

/** YAML for one line of text: quoted when a plain scalar would read it as something else. */
function scalar(text: string): string {
  return /^[\w][\w ,.()/-]*$/.test(text) && !/: |\s#/.test(text) ? text : JSON.stringify(text);
}

/**
 * `skill init NAME`: a new skill folder that passes `validate --strict`: `<dir>/<NAME>/SKILL.md`
 * with the spec's fields, the folder named after the skill. Default dir: the project's
 * `.agents/skills` (the folder every agent preset reads). Never overwrites.
 */
export async function run(
  ctx: Context,
  name: string,
  opts: { readonly description?: string; readonly dir?: string },
): Promise<number> {
  // The project's folder as the install commands find it, so `init` and `add` agree on it.
  const root = opts.dir ? resolve(opts.dir) : join(projectRoot(ctx.cwd, ctx.home), ".agents", "skills");
  const folder = join(root, name);
  const file = join(folder, "SKILL.md");
  const description = (opts.description ?? PLACEHOLDER).replace(/\s+/g, " ").trim();
  const problems = validateFrontmatter({ name, description }, file, { strict: true }).filter(
    (d) => d.severity === "error",
  );
  if (problems.length > 0) {
    // Nothing exists yet: the messages name no file, and a name that only breaks the rules of
    // spelling gets the one that keeps them (`My Skill` → `my-skill`).
    const slug = name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "");
    const usable =
      slug !== "" &&
      slug !== name &&
      validateFrontmatter({ name: slug, description }, join(root, slug, "SKILL.md"), { strict: true }).every(
        (d) => d.severity !== "error",
      );
    const said = problems.map((d) => printable(d.message.replace(` in ${file}`, ""))).join("; ");
    throw new UsageError(usable ? `${said}; try \`skill init ${slug}\`` : said);
  }
  if ((await lstat(folder).catch(() => undefined)) !== undefined) {
    throw new UserError(
      `${displayPath(folder, ctx.cwd, ctx.home)} already exists; pick another name or remove it`,
    );
  }
  const title = name
    .split("-")
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join(" ");
  const text = `---\nname: ${name}\ndescription: ${scalar(description)}\n---\n\n# ${title}\n\n## When to use\n\n- …\n\n## Steps\n\n1. …\n`;
  // Through core's one writer, inside the project (or the folder --dir names): a checkout whose
  // .agents links elsewhere does not redirect it.
  const stage = await stageSkillFolder(folder, { within: opts.dir ? root : dirname(dirname(root)) });
  try {
    await stage.write("SKILL.md", new TextEncoder().encode(text));
    await stage.commit();
  } catch (error) {
    await stage.abort();
    throw error;
  }
  const findings = await validateSkillFile(file, { strict: true });
  const shown = displayPath(file, ctx.cwd, ctx.home);
  if (ctx.out.json) ctx.out.data({ file, findings });
  else {
    ctx.out.line(`Created ${shown}`);
    if (!opts.description)
      ctx.out.line(`Next: write its description (what it does, when to use it) and its steps.`);
  }
  return findings.some((d) => d.severity === "error") ? 1 : 0;
}
