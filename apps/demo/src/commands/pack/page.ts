import { basename, join } from "node:path";
import { writeInside } from "@skill/core";
import type { RemoteSkillManifest } from "@skill/remote";
import type { Progress } from "../../progress.js";
import { renderPage } from "./page-html.js";
import { pageIndex } from "./page-search.js";
import { pageSkills } from "./page-skills.js";

/** The page's file name, beside the pack's `index.json`. */
export const PAGE_FILE = "index.html";

/**
 * Writes `<root>/index.html`, the pack's page, through core's writer: every skill of the written
 * `manifest` with its description, files, capabilities and install commands, and a search box.
 * Returns its path and how many skills it shows; `progress` is told each skill it audits.
 */
export async function writePage(
  root: string,
  manifest: RemoteSkillManifest,
  skillPaths: readonly string[],
  baseUrl: string | undefined,
  progress?: Progress,
): Promise<{ path: string; skills: number }> {
  const skills = await pageSkills(manifest, skillPaths, baseUrl, progress);
  const html = renderPage({
    title: basename(root),
    skills,
    index: pageIndex(skills.map((s) => s.metadata)),
    placeholder: baseUrl === undefined,
  });
  await writeInside(root, PAGE_FILE, new TextEncoder().encode(html));
  return { path: join(root, PAGE_FILE), skills: skills.length };
}
