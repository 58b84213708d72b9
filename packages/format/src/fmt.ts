import type { SkillMetadata } from "@skill/core";
import { skillBullet, skillElement } from "./elements.js";

/** Options of {@link fmt}. */
export interface FmtOptions {
  /** `true`: one `<skill>` element per skill; `false`: one markdown bullet per skill. */
  readonly verbose: boolean;
}

/**
 * Lists skills for an agent, in the order given; an empty list gives `""`.
 *
 * Verbose, per skill (joined by `\n`, no wrapper):
 * `<skill>\n  <name>N</name>\n  <description>D</description>\n  <location>L</location>\n</skill>`,
 * with N, D and L escaped by {@link escapeXml}. Compact: `- **N**: D` per skill, where each run
 * of whitespace holding a line break becomes one space. For the `<available_skills>` wrapper,
 * other styles and a character budget, use {@link formatCatalog}.
 *
 * @example
 * const pdf = { name: "pdf", description: "Read PDFs", location: "/s/pdf/SKILL.md", content: "", frontmatter: {} };
 * fmt([pdf], { verbose: false }); // "- **pdf**: Read PDFs"
 * fmt([pdf], { verbose: true });
 * // "<skill>\n  <name>pdf</name>\n  <description>Read PDFs</description>\n  <location>/s/pdf/SKILL.md</location>\n</skill>"
 */
export function fmt(skills: readonly SkillMetadata[], options: FmtOptions): string {
  return skills
    .map((s) =>
      options.verbose
        ? skillElement("", s.name, s.description, s.location)
        : skillBullet(s.name, s.description),
    )
    .join("\n");
}
