import {
  abortError,
  compareCodeUnits,
  errnoOf,
  errorMessage,
  parseSkill,
  printable,
  SkillError,
  splitFrontmatter,
} from "@skill/core";
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
import { fieldLines, hiddenUnicodeFindings, htmlCommentFindings, injectionFindings } from "./skill-md.js";
import { type CodeParts, codeLines, codeParts, fences, normalizeNewlines, TextFile } from "./text.js";
import type { AuditFinding, AuditResult, Capabilities } from "./types.js";

/** The bounds of one audit, checked. */
export interface AuditLimits {
  readonly maxFiles: number;
  readonly maxBytes: number;
  readonly maxFileBytes: number;
  readonly signal?: AbortSignal | undefined;
}

/** A bundled file as the skill's lister gives it (SKILL.md aside). */
export interface ListedFile {
  /** Relative to the skill folder, `/`-separated. */
  readonly path: string;
  /** Any exec bit set (only a folder on disk knows). */
  readonly execBit: boolean;
  /** Bytes, when the lister knows. */
  readonly size?: number;
  /** `outside` and `dangling`: a link that is never followed, so never read. */
  readonly link?: "inside" | "outside" | "dangling";
}

/** Something the audit could not look at, or stopped before. */
export interface Note {
  readonly path: string;
  readonly message: string;
}

/**
 * What the analyser reads one skill through: a folder on disk, or a skill service for a
 * skill that may not be files at all. Both give the same analysis.
 */
export interface SkillInput {
  /** SKILL.md's path or URI, for messages. */
  readonly location: string;
  /** SKILL.md's bytes, with its frontmatter when the source parsed it already. */
  readonly skillMd: { readonly bytes: Uint8Array; readonly frontmatter?: Readonly<Record<string, unknown>> };
  /** Bundled files, SKILL.md left out, in the order the source lists them (shallow first, for a folder). */
  readonly files: readonly ListedFile[];
  /** Why the list is not the whole skill (a listing refused by a bound, an unreadable folder). */
  readonly notes: readonly Note[];
  /** Said when every listed file was read, but the list itself may have been cut at its bound. */
  readonly cut?: Note;
  /** The whole file (one of `files`), through the source's safe reader. */
  read(file: ListedFile): Promise<Uint8Array>;
  /** The finding a link that is never followed deserves, if any. */
  linkFinding?(file: ListedFile): Promise<AuditFinding | undefined>;
}

const MARKDOWN = new Set(["md", "markdown", "mdx"]);
const SHELL = new Set(["sh", "bash", "zsh", "ksh", "fish", "csh"]);
const LEGAL = /(?:^|\/)(?:LICEN[CS]E|NOTICE|COPYING)(?:[.-][^/]*)?$/i;
const SHELL_PROGRAMS = /^(?:(?:ba|z|k|da|fi|c)?sh)$/;
const SKILL_MD = "SKILL.md";

export function abortedError(signal?: AbortSignal): SkillError {
  return abortError(signal, "Skill audit was aborted");
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
  /** What of SKILL.md is code for the credential and network rules. */
  readonly code: CodeParts;
  readonly tools: string[];
  readonly hooks: boolean;
}

/**
 * The frontmatter and the line that closes it, from the whole of SKILL.md (the budget cuts
 * what is scanned, not what is parsed): tools and hooks are known even when the body is cut.
 */
function frontmatterOf(
  text: string,
  location: string,
  parsed: Readonly<Record<string, unknown>> | undefined,
): { frontmatter?: Readonly<Record<string, unknown>>; closingLine: number; error?: unknown } {
  try {
    const split = splitFrontmatter(text);
    const closingLine = 2 + (split.frontmatter === "" ? 0 : split.frontmatter.split("\n").length);
    return { frontmatter: parsed ?? readFrontmatter(text, location), closingLine };
  } catch (error) {
    return { ...(parsed ? { frontmatter: parsed } : {}), closingLine: 0, error };
  }
}

function auditSkillMd(
  file: TextFile,
  whole: string,
  location: string,
  parsed: Readonly<Record<string, unknown>> | undefined,
  commands: Set<string>,
): SkillMdResult {
  const findings: AuditFinding[] = [];
  const { frontmatter, closingLine, error } = frontmatterOf(whole, location, parsed);
  if (frontmatter === undefined) {
    findings.push({
      rule: "frontmatter-error",
      severity: "warning",
      path: SKILL_MD,
      message: `the frontmatter could not be read, so its tools, hooks and description were not checked: ${printable(errorMessage(error).replace(` in ${location}`, ""))}`,
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
    code: skillMdCode(file, code, closingLine),
    tools: frontmatter ? normalizeTools(frontmatter["allowed-tools"]) : [],
    hooks: frontmatter !== undefined && frontmatter.hooks !== undefined && frontmatter.hooks !== null,
  };
}

/**
 * The code of SKILL.md: its fenced blocks, inline code spans and the frontmatter (hooks run
 * commands), but not `description` and `when_to_use`, which are prose about the skill.
 */
function skillMdCode(file: TextFile, fenced: readonly boolean[], closingLine: number): CodeParts {
  const lines = [...fenced];
  for (let n = 1; n <= Math.min(closingLine, file.lineCount); n++) lines[n] = true;
  for (const key of ["description", "when_to_use"]) {
    const field = fieldLines(file, key, closingLine);
    if (field) for (let n = field.from; n <= field.to; n++) lines[n] = false;
  }
  return codeParts(file, lines);
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
    if (a.path === SKILL_MD) return -1;
    if (b.path === SKILL_MD) return 1;
    return a.path < b.path ? -1 : 1;
  }
  const line = (a.line ?? 0) - (b.line ?? 0);
  if (line !== 0) return line;
  return a.rule < b.rule ? -1 : a.rule > b.rule ? 1 : 0;
}

function readFailure(error: unknown): string {
  if (SkillError.isInstance(error)) {
    const what = error.code === "LIMIT_EXCEEDED" ? "not read" : "could not read the file";
    return `${what}: ${printable(error.message)}`;
  }
  return `could not read the file (${errnoOf(error) ?? printable(errorMessage(error))})`;
}

/** Everything the files of one skill add up to, gathered file by file. */
class Tally {
  readonly findings: AuditFinding[] = [];
  readonly notes: Note[] = [];
  readonly executables: string[] = [];
  readonly commands = new Set<string>();
  readonly hosts = new Set<string>();
  readonly env = envEvidence();
  tools: string[] = [];
  hooks = false;
  files = 0;
  bytes = 0;

  /** The part of `bytes` the budget lets the audit look at; a note when it is cut. */
  take(path: string, bytes: Uint8Array, limits: AuditLimits): Uint8Array {
    const budget = Math.min(limits.maxFileBytes, limits.maxBytes - this.bytes);
    const data = bytes.length > budget ? bytes.subarray(0, Math.max(0, budget)) : bytes;
    if (data.length < bytes.length) {
      const which = budget === limits.maxFileBytes ? "maxFileBytes" : "maxBytes";
      this.notes.push({
        path,
        message: `read only the first ${data.length} of ${bytes.length} bytes (${which})`,
      });
    }
    this.files++;
    this.bytes += data.length;
    return data;
  }

  /**
   * The rules every text file goes through, SKILL.md included. In markdown only `code` is
   * code (SKILL.md's is given; another file's is its fenced blocks and code spans).
   */
  text(path: string, file: TextFile, kind: TextKind, code?: CodeParts): void {
    // A licence names its publisher's site; it asks nothing of the agent.
    if (LEGAL.test(path)) return;
    const parts = kind === "markdown" ? (code ?? codeParts(file, codeLines(file, fences(file)))) : undefined;
    this.findings.push(...codeFindings(path, file, parts));
    hostsIn(file.text, this.hosts);
    envIn(file, kind, this.env);
  }
}

/**
 * The files in the order they are read: those whose name or mode says they run first (no
 * read needed to tell), then the rest as listed. Padding a skill with filler files then costs
 * `maxFiles` and `maxBytes` the filler, not the scripts.
 */
function readOrder(files: readonly ListedFile[]): ListedFile[] {
  const runs = (file: ListedFile) => isExecutable(file.path, new Uint8Array(0), file.execBit);
  return [...files.filter(runs), ...files.filter((file) => !runs(file))];
}

/** The note that stops reading before `entry`, when `maxFiles` or `maxBytes` is used up. */
function budgetSpent(tally: Tally, limits: AuditLimits, entry: ListedFile): Note | undefined {
  if (tally.files >= limits.maxFiles) {
    return { path: entry.path, message: `stopped after ${limits.maxFiles} files (maxFiles)` };
  }
  if (limits.maxBytes - tally.bytes <= 0) {
    return { path: entry.path, message: `stopped after ${tally.bytes} bytes (maxBytes)` };
  }
  return undefined;
}

/**
 * The one analysis of a skill, whatever it is read through: SKILL.md first, then the listed
 * files (those that run by name or mode first), within `maxFiles` files and `maxBytes` bytes
 * (`maxFileBytes` of each). Links that are never followed go to `linkFinding`, unread; past
 * the budget, what needs no read is still said: every link's finding, and every file whose
 * name or mode says it runs.
 */
export async function analyseSkill(input: SkillInput, limits: AuditLimits): Promise<AuditResult> {
  const { signal } = limits;
  const tally = new Tally();

  const whole = input.skillMd.bytes;
  const skillMd = tally.take(SKILL_MD, whole, limits);
  const skillFile = new TextFile(decode(skillMd));
  const wholeText = skillMd === whole ? skillFile.text : decode(whole);
  const result = auditSkillMd(
    skillFile,
    wholeText,
    input.location,
    input.skillMd.frontmatter,
    tally.commands,
  );
  tally.findings.push(...result.findings);
  tally.tools = result.tools;
  tally.hooks = result.hooks;
  tally.text(SKILL_MD, skillFile, "markdown", result.code);

  let stopped: Note | undefined;
  for (const entry of readOrder(input.files)) {
    if (signal?.aborted) throw abortedError(signal);
    if (entry.link === "outside" || entry.link === "dangling") {
      const finding = await input.linkFinding?.(entry);
      if (finding) tally.findings.push(finding);
      continue;
    }
    stopped ??= budgetSpent(tally, limits, entry);
    if (stopped) {
      if (isExecutable(entry.path, new Uint8Array(0), entry.execBit)) tally.executables.push(entry.path);
      continue;
    }
    let bytes: Uint8Array;
    try {
      bytes = await input.read(entry);
    } catch (error) {
      if (signal?.aborted || (SkillError.isInstance(error) && error.code === "ABORTED")) throw error;
      tally.notes.push({ path: entry.path, message: readFailure(error) });
      // Unread, it is still there: a script's name says it can run.
      if (isExecutable(entry.path, new Uint8Array(0), entry.execBit)) tally.executables.push(entry.path);
      continue;
    }
    const data = tally.take(entry.path, bytes, limits);
    if (isExecutable(entry.path, data, entry.execBit)) tally.executables.push(entry.path);
    if (isBinary(data)) continue;
    const file = new TextFile(decode(data));
    tally.text(entry.path, file, kindOf(entry.path, file.text));
  }
  if (stopped) tally.notes.push(stopped);
  const notes = [...input.notes, ...tally.notes];
  if (!stopped && input.cut) notes.push(input.cut);
  for (const note of notes) {
    tally.findings.push({
      rule: "audit-incomplete",
      severity: "warning",
      path: note.path,
      message: note.message,
    });
  }

  const capabilities: Capabilities = {
    tools: sorted(tally.tools),
    executables: sorted(tally.executables),
    commands: sorted(tally.commands),
    hosts: sorted(tally.hosts),
    env: sorted(envRead(tally.env)),
    hooks: tally.hooks,
  };
  return {
    capabilities,
    findings: tally.findings.sort(byPlace),
    files: tally.files,
    bytes: tally.bytes,
    complete: notes.length === 0,
  };
}
