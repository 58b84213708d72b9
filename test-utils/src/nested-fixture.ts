// A project laid out as nested skills are installed: the parent's folder whole, the nested
// skill inside it, and the nested skill in its own folder too, with the same bytes.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { tempWorld, writeSkill } from "./fixture.js";

export interface NestedInstall {
  readonly base: string;
  readonly home: string;
  readonly project: string;
  /** `<project>/.agents/skills`. */
  readonly skills: string;
  /** `parent/SKILL.md`, the skill that holds `child`. */
  readonly parent: string;
  /** `parent/child/SKILL.md`, the copy inside the parent's folder. */
  readonly inside: string;
  /** `child/SKILL.md`, the nested skill in its own folder. */
  readonly own: string;
}

/** A temp home (empty) and git project holding `parent`, `parent/child` and `child` in `.agents/skills`. */
export async function nestedInstall(): Promise<NestedInstall> {
  const world = await tempWorld();
  const skills = join(world.project, ".agents", "skills");
  const parent = await writeSkill(join(skills, "parent"));
  const inside = await writeSkill(join(skills, "parent", "child"));
  const own = await writeSkill(join(skills, "child"), "child", await readFile(inside, "utf8"));
  return { ...world, skills, parent, inside, own };
}
