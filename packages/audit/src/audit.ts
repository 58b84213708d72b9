import { type AgentInfo, SkillError, type SkillService } from "@skill/core";
import { type AuditLimits, abortedError, analyseSkill } from "./analyse.js";
import { folderInput } from "./folder.js";
import { registryInput } from "./registry.js";
import type { AuditOptions, AuditResult } from "./types.js";

/** Limits used when {@link AuditOptions} leaves them out. */
export const DEFAULT_AUDIT_LIMITS = {
  maxFiles: 1000,
  maxBytes: 8 * 1024 * 1024,
  maxFileBytes: 1024 * 1024,
} as const;

function limit(options: AuditOptions, key: keyof typeof DEFAULT_AUDIT_LIMITS): number {
  const value = options[key] ?? DEFAULT_AUDIT_LIMITS[key];
  if (!Number.isInteger(value) || value < 1) {
    throw new SkillError(
      "INVALID_FIELD",
      `Invalid audit option '${key}': expected a whole number ≥ 1, found ${String(value)}`,
      {
        field: key,
      },
    );
  }
  return value;
}

function limitsOf(options: AuditOptions): AuditLimits {
  const limits = {
    maxFiles: limit(options, "maxFiles"),
    maxBytes: limit(options, "maxBytes"),
    maxFileBytes: limit(options, "maxFileBytes"),
    signal: options.signal,
  };
  if (options.signal?.aborted) throw abortedError(options.signal);
  return limits;
}

/**
 * Audits one skill folder (or the folder of a SKILL.md path) without running anything:
 * what it can do ({@link Capabilities}) and what it hides (findings with rule ids, file and
 * line). Lists the folder with core's `listSkillFiles` (shallow files first, dot-files
 * included, nested skills left to their own audit) and reads with core's `readInside`: files
 * that run by name or mode first, at most `maxFiles` files and `maxBytes` bytes, never a link
 * out of the folder (a `symlink-outside` finding), never a FIFO or device. `complete: false`
 * and an `audit-incomplete` finding say when a limit cut the audit short (the walker's own
 * bounds on a folder too deep or too wide included); what was found before it is kept.
 *
 * @throws SkillError `NOT_FOUND` (no folder or no SKILL.md), `READ_ERROR`, `UNSAFE_PATH`
 * (SKILL.md is a symlink leaving the folder), `LIMIT_EXCEEDED` (SKILL.md over the largest
 * file read), `INVALID_FIELD` (a bad limit), `ABORTED`.
 */
export async function auditSkill(dir: string, options: AuditOptions = {}): Promise<AuditResult> {
  const limits = limitsOf(options);
  return analyseSkill(await folderInput(dir, limits), limits);
}

/**
 * Audits a skill of a {@link SkillService} by name, through the service, for skills that
 * may not be files on disk (MCP, built-in or memory skills): SKILL.md's own bytes from
 * `service.readFile(name, "SKILL.md")` (permissions checked, the bytes verified as `read`
 * verifies them), bundled files from `service.files` and `service.readFile`. The analysis is
 * `auditSkill`'s; what a service cannot say is not seen: exec bits, dot-files, links it does
 * not list. A bundled file the source cannot read is an `audit-incomplete` finding.
 *
 * @throws SkillError `NOT_FOUND` for a missing skill and, with `agent`, for a denied one
 * alike (the message lists only what the agent sees); whatever `service.read` rejects with
 * (`INTEGRITY_ERROR`…); `INVALID_FIELD` (a bad limit); `ABORTED`.
 */
export async function auditRegistrySkill(
  service: SkillService,
  name: string,
  agent?: AgentInfo,
  options: AuditOptions = {},
): Promise<AuditResult> {
  const limits = limitsOf(options);
  return analyseSkill(await registryInput(service, name, agent, limits), limits);
}
