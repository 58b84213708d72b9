/** What a skill can do, read from its files without running anything. Lists are sorted and unique. */
export interface Capabilities {
  /** `allowed-tools` from the frontmatter (a string or a list), one entry per tool, e.g. `Bash(git:*)`. */
  readonly tools: readonly string[];
  /** Files that can run: a shebang, an exec bit, a native binary, or a script extension (`.sh`, `.py`, `.js`, `.ps1`…). Relative, `/`-separated. */
  readonly executables: readonly string[];
  /** Shell commands Claude Code runs while loading SKILL.md: `` !`cmd` `` and ```` ```! ```` blocks. */
  readonly commands: readonly string[];
  /** Host names in URLs in any text file, lower case, without port. */
  readonly hosts: readonly string[];
  /** Environment variables read: `$VAR` in shell and markdown, `process.env.X`, `os.environ[…]`, `os.getenv(…)`, `$env:X`. */
  readonly env: readonly string[];
  /** True when the frontmatter declares `hooks`. */
  readonly hooks: boolean;
}

/** Rule ids of {@link AuditFinding}. */
export type AuditRule =
  | "hidden-unicode"
  | "html-comment-instructions"
  | "description-injection"
  | "remote-exec"
  | "credential-read"
  | "exfil"
  | "symlink-outside"
  | "frontmatter-error"
  | "audit-incomplete";

export interface AuditFinding {
  /** Stable rule id (see {@link AuditRule}). */
  readonly rule: string;
  readonly severity: "error" | "warning";
  /** File the finding is in, relative to the skill folder, `/`-separated (`SKILL.md`, `scripts/x.sh`). */
  readonly path: string;
  /** 1-based line, when the finding is in a line of text. */
  readonly line?: number;
  /** For people; quotes from the file are cut short and unprintable characters escaped. */
  readonly message: string;
}

export interface AuditOptions {
  readonly signal?: AbortSignal;
  /** Most files read per skill, SKILL.md included (default 1,000). */
  readonly maxFiles?: number;
  /** Most bytes read per skill, all files together (default 8 MiB). */
  readonly maxBytes?: number;
  /** Most bytes read from one file; the rest of a bigger file is not looked at (default 1 MiB). */
  readonly maxFileBytes?: number;
}

export interface AuditResult {
  readonly capabilities: Capabilities;
  /** Sorted by path, then line, then rule. */
  readonly findings: AuditFinding[];
  /** Files looked at (SKILL.md included). */
  readonly files: number;
  /** Bytes read. */
  readonly bytes: number;
  /** False when a limit stopped the audit early or cut a file short (an `audit-incomplete` finding says where). */
  readonly complete: boolean;
}

type DiffSide = {
  readonly [K in keyof Capabilities]: Capabilities[K] extends boolean ? boolean : readonly string[];
};

/** What a skill gained and lost between two audits. */
export interface CapabilityDiff {
  /** True when anything was gained or lost. */
  readonly changed: boolean;
  /** Entries present after and not before; `hooks: true` when hooks appeared. */
  readonly gained: DiffSide;
  /** Entries present before and not after; `hooks: true` when hooks went away. */
  readonly lost: DiffSide;
}
