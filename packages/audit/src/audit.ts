import { realpath, stat } from "node:fs/promises";
import { basename, dirname, resolve } from "node:path";
import { compareCodeUnits, parseSkill, printable, SkillError, splitFrontmatter } from "@skill/core";
import {
  commandsIn,
  envEvidence,
  envIn,
  envRead,
  extensionOf,
  hostsIn,
  isExecutable,
  normalizeTools,
  shebangInterpreter,
  type TextKind,
} from "./capabilities.js";
import { codeFindings } from "./code-rules.js";
import { hiddenUnicodeFindings, htmlCommentFindings, injectionFindings } from "./skill-md.js";
import { codeLines, fences, normalizeNewlines, TextFile } from "./text.js";
import type { AuditFinding, AuditOptions, AuditResult, Capabilities } from "./types.js";
import { walkSkill } from "./walk.js";

/** Limits used when {@link AuditOptions} leaves them out. */
export const DEFAULT_AUDIT_LIMITS = {
  maxFiles: 1000,
  maxBytes: 8 * 1024 * 1024,
  maxFileBytes: 1024 * 1024,
} as const;

const MARKDOWN = new Set(["md", "markdown", "mdx"]);
const SHELL = new Set(["sh", "bash", "zsh", "ksh", "fish", "csh"]);
const LEGAL = /(?:^|\/)(?:LICEN[CS]E|NOTICE|COPYING)(?:[.-][^/]*)?$/i;
const SHELL_PROGRAMS = /^(?:(?:ba|z|k|da|fi|c)?sh)$/;

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

function isBinary(bytes: Uint8Array): boolean {
  const n = Math.min(bytes.length, 8192);
  for (let i = 0; i < n; i++) if (bytes[i] === 0) return true;
  return false;
}

const decoder = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });

function decode(bytes: Uint8Array): string {
  let text = decoder.decode(bytes);
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  return normalizeNewlines(text);
}

/** The skill folder `path` names: the folder itself, or the folder of a SKILL.md. */
async function skillRoot(path: string): Promise<string> {
  const absolute = resolve(path);
  const info = await stat(absolute).catch((error: NodeJS.ErrnoException) => {
    throw new SkillError(
      "NOT_FOUND",
      `Skill folder not found: ${absolute} (${error.code ?? error.message})`,
      {
        path: absolute,
        cause: error,
      },
    );
  });
  const dir = info.isDirectory() ? absolute : dirname(absolute);
  if (!info.isDirectory() && basename(absolute).toLowerCase() !== "skill.md") {
    throw new SkillError("READ_ERROR", `Not a skill folder or SKILL.md: ${absolute}`, { path: absolute });
  }
  return realpath(dir);
}

/** The frontmatter as parsed by @skill/core; a missing name or description is filled in so the rest still reads. */
function readFrontmatter(text: string, location: string): Readonly<Record<string, unknown>> {
  let attempt = text;
  for (let tries = 0; ; tries++) {
    try {
      return parseSkill(attempt, location, { maxBytes: Number.MAX_SAFE_INTEGER, nameFallback: "folder" })
        .skill.frontmatter;
    } catch (error) {
      const field = SkillError.isInstance(error) && error.code === "MISSING_FIELD" ? error.field : undefined;
      // Claude Code loads a skill without a name or description: its tools and hooks still count.
      if (tries >= 1 || field !== "description") throw error;
      attempt = attempt.replace(/^---[ \t]*\n/, `---\n${field}: "-"\n`);
    }
  }
}

interface SkillMdResult {
  readonly findings: AuditFinding[];
  readonly tools: string[];
  readonly hooks: boolean;
}

function auditSkillMd(file: TextFile, location: string, commands: Set<string>): SkillMdResult {
  const findings: AuditFinding[] = [];
  let closingLine = 0;
  let frontmatter: Readonly<Record<string, unknown>> | undefined;
  try {
    const split = splitFrontmatter(file.text);
    closingLine = 2 + (split.frontmatter === "" ? 0 : split.frontmatter.split("\n").length);
    frontmatter = readFrontmatter(file.text, location);
  } catch (error) {
    findings.push({
      rule: "frontmatter-error",
      severity: "warning",
      path: "SKILL.md",
      message: `the frontmatter could not be read, so its tools, hooks and description were not checked: ${printable((error as Error).message.replace(` in ${location}`, ""))}`,
    });
  }
  const bodyLine = closingLine + 1;
  const blocks = fences(file, bodyLine);
  const code = codeLines(file, blocks);
  findings.push(...hiddenUnicodeFindings(file, code), ...htmlCommentFindings(file, code, bodyLine));
  if (frontmatter) findings.push(...injectionFindings(file, frontmatter, closingLine));
  commandsIn(file, blocks, commands, bodyLine);
  return {
    findings,
    tools: frontmatter ? normalizeTools(frontmatter["allowed-tools"]) : [],
    hooks: frontmatter !== undefined && frontmatter.hooks !== undefined && frontmatter.hooks !== null,
  };
}

function kindOf(path: string, text: string): TextKind {
  const ext = extensionOf(path);
  if (MARKDOWN.has(ext)) return "markdown";
  if (SHELL.has(ext) || SHELL_PROGRAMS.test(shebangInterpreter(text))) return "shell";
  return "other";
}

function sorted(values: Iterable<string>): string[] {
  return [...new Set(values)].sort(compareCodeUnits);
}

function byPlace(a: AuditFinding, b: AuditFinding): number {
  if (a.path !== b.path) {
    if (a.path === "SKILL.md") return -1;
    if (b.path === "SKILL.md") return 1;
    return a.path < b.path ? -1 : 1;
  }
  const line = (a.line ?? 0) - (b.line ?? 0);
  if (line !== 0) return line;
  return a.rule < b.rule ? -1 : a.rule > b.rule ? 1 : 0;
}

/**
 * Audits one skill folder (or the folder of a SKILL.md path) without running anything:
 * what it can do ({@link Capabilities}) and what it hides (findings with rule ids, file and
 * line). Reads at most `maxFiles` files and `maxBytes` bytes, never follows a symlink and
 * never opens a FIFO or device; `complete: false` and an `audit-incomplete` finding say
 * when a limit cut the audit short.
 *
 * @throws SkillError `NOT_FOUND` (no folder or no SKILL.md), `READ_ERROR`, `UNSAFE_PATH`
 * (SKILL.md is a symlink leaving the folder), `INVALID_FIELD` (a bad limit), `ABORTED`.
 */
export async function auditSkill(dir: string, options: AuditOptions = {}): Promise<AuditResult> {
  const limits = {
    maxFiles: limit(options, "maxFiles"),
    maxBytes: limit(options, "maxBytes"),
    maxFileBytes: limit(options, "maxFileBytes"),
    signal: options.signal,
  };
  if (options.signal?.aborted) throw new SkillError("ABORTED", "Skill audit was aborted");
  const root = await skillRoot(dir);
  const walked = await walkSkill(root, limits);

  const findings: AuditFinding[] = [];
  const executables: string[] = [];
  const commands = new Set<string>();
  const hosts = new Set<string>();
  const env = envEvidence();
  let tools: string[] = [];
  let hooks = false;

  for (const entry of walked.files) {
    const skillMd = entry.path === "SKILL.md";
    if (!skillMd && isExecutable(entry.path, entry.bytes, entry.execBit)) executables.push(entry.path);
    if (!skillMd && isBinary(entry.bytes)) continue;
    const file = new TextFile(decode(entry.bytes));
    if (skillMd) {
      const result = auditSkillMd(file, `${root}/SKILL.md`, commands);
      findings.push(...result.findings);
      tools = result.tools;
      hooks = result.hooks;
    }
    // A licence names its publisher's site; it asks nothing of the agent.
    if (LEGAL.test(entry.path)) continue;
    findings.push(...codeFindings(entry.path, file));
    hostsIn(file.text, hosts);
    envIn(file, skillMd ? "markdown" : kindOf(entry.path, file.text), env);
  }
  for (const link of walked.escapes) {
    findings.push({
      rule: "symlink-outside",
      severity: "warning",
      path: link.path,
      message: `a symlink to ${printable(JSON.stringify(link.target))}, outside the skill folder (not followed)`,
    });
  }
  for (const note of walked.limits) {
    findings.push({ rule: "audit-incomplete", severity: "warning", path: note.path, message: note.message });
  }

  const capabilities: Capabilities = {
    tools: sorted(tools),
    executables: sorted(executables),
    commands: sorted(commands),
    hosts: sorted(hosts),
    env: sorted(envRead(env)),
    hooks,
  };
  return {
    capabilities,
    findings: findings.sort(byPlace),
    files: walked.files.length,
    bytes: walked.bytes,
    complete: walked.limits.length === 0,
  };
}
