import {
  type AgentInfo,
  DEFAULT_SKILL_FILES_LIMIT,
  errorMessage,
  parseSkill,
  printable,
  SkillError,
  type SkillService,
} from "@skill/core";
import type { AuditLimits, Note, SkillInput } from "./analyse.js";

function ownFrontmatter(bytes: Uint8Array, location: string): Readonly<Record<string, unknown>> | undefined {
  try {
    return parseSkill(Buffer.from(bytes).toString("utf8"), location).skill.frontmatter;
  } catch {
    return undefined;
  }
}

function isAbort(error: unknown, signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true || (SkillError.isInstance(error) && error.code === "ABORTED");
}

/**
 * A skill as the analyser reads it through a skill service: SKILL.md from `read` and
 * `readFile(name, "SKILL.md")` (permission checked and verified), the bundled files
 * from `files` and `readFile`. Works for skills that are not files (MCP, memory, archives).
 *
 * @throws SkillError `NOT_FOUND` for a missing or denied skill, as `service.read` does
 */
export async function registryInput(
  service: SkillService,
  name: string,
  agent: AgentInfo | undefined,
  limits: AuditLimits,
): Promise<SkillInput> {
  const { signal } = limits;
  const ctx = signal ? { signal } : {};
  // The raw bytes (hidden characters in YAML comments count too) and the parse of the same bytes.
  const skill = await service.read(name, agent, ctx);
  const bytes = await service.readFile(name, "SKILL.md", agent, ctx);

  const notes: Note[] = [];
  let paths: string[] = [];
  try {
    // As many as the audit reads: the maxFiles-th says the audit stopped there.
    paths = await service.files(name, agent, { limit: limits.maxFiles, ...ctx });
  } catch (error) {
    if (isAbort(error, signal)) throw error;
    notes.push({ path: ".", message: `could not list the files: ${printable(errorMessage(error))}` });
  }
  const last = paths[paths.length - 1];
  // A folder on disk is listed up to DEFAULT_SKILL_FILES_LIMIT files, whatever the limit asked.
  const cut =
    last !== undefined && paths.length >= DEFAULT_SKILL_FILES_LIMIT && paths.length < limits.maxFiles
      ? { path: last, message: `stopped after listing ${paths.length} files (the most the service lists)` }
      : undefined;
  return {
    location: skill.location,
    // What the skill asks for, from its own bytes: a registry may leave fields out (allowed-tools
    // of a skill from an untrusted MCP server), an audit says what the file holds.
    skillMd: { bytes, frontmatter: ownFrontmatter(bytes, skill.location) ?? skill.frontmatter },
    files: paths.map((path) => ({ path, execBit: false })),
    notes,
    ...(cut ? { cut } : {}),
    read: (file) => service.readFile(name, file.path, agent, ctx),
  };
}
