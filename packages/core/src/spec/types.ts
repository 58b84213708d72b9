/** Version of the SKILL.md contract this package implements. */
export const SKILL_SPEC_VERSION = 2 as const;

/**
 * Every failure @skill/* reports has one of these codes. They are stable: match on `code`,
 * never on the message text.
 */
export type SkillErrorCode =
  | "NOT_FOUND"
  | "READ_ERROR"
  | "PARSE_ERROR"
  | "MISSING_FIELD"
  | "INVALID_FIELD"
  | "DUPLICATE_NAME"
  | "HTTP_ERROR"
  | "INVALID_URL"
  | "REMOTE_ERROR"
  | "UNSAFE_PATH"
  | "INTEGRITY_ERROR"
  | "LIMIT_EXCEEDED"
  | "ABORTED"
  | "WRITE_ERROR";

/**
 * What a registry holds for a skill: everything but its body. A plain frozen object with no
 * getters, so spreading, `JSON.stringify` and `structuredClone` never touch a disk.
 */
export interface SkillMetadata {
  /** The `name` frontmatter field, surrounding whitespace trimmed. Unique in a registry. */
  readonly name: string;
  /** The `description` frontmatter field, surrounding whitespace trimmed. */
  readonly description: string;
  /**
   * Absolute path of the SKILL.md file as the source reached it (a symlink stays a symlink),
   * or a URI for a skill that is not a local file (`skill://server/pdf/SKILL.md`, `builtin:pdf`).
   */
  readonly location: string;
  /** Every frontmatter field, in document order, as JSON data (dates as ISO strings, `!!binary` as base64). */
  readonly frontmatter: Readonly<Record<string, unknown>>;
  /** Id of the {@link SkillSource} that found it, when loaded through one. */
  readonly source?: string;
  /**
   * Who vouches for it: `<kind>:<label>` or a bare id (see {@link originKind}). The entry's
   * `origin`, else the source id, else `"manual"` for a skill added with `load()`.
   */
  readonly origin: string;
  /**
   * `false` when the frontmatter says `disable-model-invocation: true` (Claude Code, Cursor) or
   * `metadata.opencode/autoinvoke: false` (opencode v2), or, under {@link LoadRules.codexPolicy},
   * when the skill's `agents/openai.yaml` says `policy.allow_implicit_invocation: false` (Codex):
   * keep it out of the model's catalog.
   */
  readonly modelInvocable: boolean;
  /** `false` when the frontmatter says `user-invocable: false`: no slash command for people. */
  readonly userInvocable: boolean;
  /**
   * With `identity: "folder"` (Claude Code): the frontmatter `name` when it differs from the
   * key (`name`, the folder). Catalogs show `key (displayName)`, as Claude Code does.
   */
  readonly displayName?: string;
  /**
   * What the body says the skill is for: its first heading and first paragraph (at most 500
   * characters; see `bodySummary`). Taken when core parses a SKILL.md anyway and kept in the
   * head cache; absent when the body has neither, or the load did not read the body.
   */
  readonly summary?: string;
}

/** A skill with its body: what `parseSkill`, `loadSkillFile` and `SkillService.read` return. */
export interface SkillInfo extends SkillMetadata {
  /** Markdown body: everything after the closing frontmatter line, untrimmed, LF line endings. */
  readonly content: string;
}

/** One finding about a skill file or a source. */
export interface Diagnostic {
  /** Stable rule id, e.g. `name-mismatch`, `unknown-field:version`, `yaml-repaired`, `folder-unreadable`. */
  readonly code: string;
  /** `error` stops the skill from loading (or fails strict validation); `warning` does not. */
  readonly severity: "error" | "warning";
  /** A sentence for people, naming the file. */
  readonly message: string;
  /** Absolute path (or URI) of the file or folder concerned. */
  readonly path?: string;
  /** The frontmatter field concerned. */
  readonly field?: string;
  /** 1-based line in the file, where known. */
  readonly line?: number;
  /** Id of the source that reported it, for findings a source made while scanning. */
  readonly source?: string;
}

/**
 * How strictly a skill file is read. The defaults follow the Agent Skills specification;
 * agent presets set these to reproduce one agent (see `@skill/discovery`'s `agentProfile`).
 */
export interface LoadRules {
  /**
   * Repair what other agents accept (default `true`): a plain scalar holding `: ` is re-read
   * as a quoted string, with a `yaml-repaired` warning. `false` repairs nothing and refuses a
   * skill with any spec finding.
   */
  readonly lenient?: boolean;
  /** Largest SKILL.md accepted, in bytes (default 1 MiB). Larger files fail with `LIMIT_EXCEEDED`. */
  readonly maxBytes?: number;
  /**
   * `"none"` (default, as the specification): a missing `name` fails the skill with
   * `MISSING_FIELD`. `"folder"` (Claude Code, Codex): the SKILL.md folder's name is used, with a
   * `name-missing` warning.
   */
  readonly nameFallback?: "none" | "folder";
  /**
   * `true` (Codex, Amp, Copilot CLI): a name over 64 characters fails the skill with
   * `INVALID_FIELD`. Counted trimmed, each run of whitespace one space, in code points.
   * Default `false`: a warning.
   */
  readonly rejectLongName?: boolean;
  /**
   * `true` (Copilot CLI): a description over 1,024 characters fails the skill with
   * `INVALID_FIELD`, counted as {@link rejectLongName} counts. Default `false`: a warning.
   * (Codex 0.171 and Amp load a 5,000-character description.)
   */
  readonly rejectLongDescription?: boolean;
  /** Both {@link rejectLongName} and {@link rejectLongDescription}, where neither is set itself. */
  readonly rejectLongFields?: boolean;
  /**
   * What a skill is keyed by. `"name"` (default): its `name` field. `"folder"` (Claude Code):
   * the SKILL.md folder's name is the key, so two folders with one `name` both load; the `name`
   * field, when it differs, is {@link SkillMetadata.displayName}.
   */
  readonly identity?: "name" | "folder";
  /**
   * `true` (default): a missing or empty `description` fails the skill with `MISSING_FIELD`.
   * `false` (Claude Code, Copilot, opencode): the skill loads with a `description-missing` or
   * `description-empty` warning. `"field"` (Gemini CLI): the field must be there, it may be empty.
   */
  readonly requireDescription?: boolean | "field";
  /**
   * `"body"` (Claude Code): a missing or empty `description` is the first non-blank line of the
   * body. Default `"none"`.
   */
  readonly descriptionFallback?: "none" | "body";
  /**
   * `true` (Codex, Gemini CLI, pi): a file starting with a UTF-8 byte order mark fails with
   * `PARSE_ERROR` (rule id `bom`). Default `false`: the mark is dropped.
   */
  readonly rejectBom?: boolean;
  /**
   * `true` (default): a file without `---` delimiters fails with `PARSE_ERROR`. `false` (Claude
   * Code): it is read as a skill with no fields (a `frontmatter-missing` warning), the whole
   * text its body; with `identity: "folder"` and `descriptionFallback: "body"` it then loads.
   */
  readonly requireFrontmatter?: boolean;
  /**
   * Frontmatter YAML that does not parse. `"repair"` (default when lenient): a plain scalar
   * holding `: ` is re-read quoted (`yaml-repaired`), else `PARSE_ERROR`. `"refuse"` (Copilot,
   * pi, Amp; the default when strict): `PARSE_ERROR`. `"ignore"` (Claude Code): read as
   * no fields, with a `yaml-invalid` warning. `"lines"` (Gemini CLI): `name:` and `description:`
   * read line by line (the rest of the line trimmed, quotes and all; the description's indented
   * lines after it joined with spaces), with a `yaml-invalid` warning; `PARSE_ERROR` when
   * either is not there. `"quote"` (Codex 0.171): as `"repair"`, but the line alone is quoted
   * (its indented lines are not folded into it), so a file broken otherwise still refuses.
   */
  readonly brokenYaml?: "repair" | "refuse" | "ignore" | "lines" | "quote";
  /**
   * `true` (Amp): a `name` breaking the specification's character rules
   * (`name-invalid-chars`, `name-leading-or-trailing-hyphen`, `name-consecutive-hyphens`)
   * fails the skill with `INVALID_FIELD`. `"loose"` (Copilot CLI 1.0.102): only a name that
   * does not start with an ASCII letter or digit, or holds anything but ASCII letters, digits,
   * `-`, `_`, `.`, `:` and spaces, fails. Default `false`: a warning.
   */
  readonly rejectInvalidName?: boolean | "loose";
  /**
   * `true` (Codex): a skill whose SKILL.md sits in a folder on disk is also judged by Codex's
   * `agents/openai.yaml` in that folder; `policy: { allow_implicit_invocation: false }` (the
   * YAML boolean: Codex 0.171 ignores the whole file when the value is a string) makes
   * {@link SkillMetadata.modelInvocable} `false`. It costs one `stat` per such skill (the file is
   * read only when it exists, through the rules of `readInside`); a cached head holds
   * while that file stays as it was. Default `false`: the file is not looked at.
   */
  readonly codexPolicy?: boolean;
}

/** Options of {@link parseSkill} and {@link loadSkillFile}. */
export interface ParseOptions extends LoadRules {}

/** A parsed skill and what was noticed while parsing it. */
export interface ParsedSkill {
  readonly skill: SkillInfo;
  readonly diagnostics: readonly Diagnostic[];
}

/**
 * Where a skill file is going, and so how it is judged: `spec` (default) the Agent Skills
 * specification; `skills-ref` its reference validator; `claude-code`, `codex` those agents'
 * loaders; `gh-publish` what `gh skill publish` accepts.
 */
export type ValidationTarget = "spec" | "skills-ref" | "claude-code" | "codex" | "gh-publish";

/** Validation options. */
export interface ValidateOptions {
  /** Report findings as errors (skills-ref parity). Default `false`: warnings. */
  readonly strict?: boolean;
  /** Judge the file as this place would (default `spec`). */
  readonly target?: ValidationTarget;
}

/** A name collision: the skill at `kept` replaced the one at `dropped` (both locations). */
export interface ShadowedSkill {
  readonly name: string;
  readonly kept: string;
  readonly dropped: string;
}

/** One search result: a skill name, its score (higher is better) and the query terms it matched. */
export interface SkillHit {
  readonly name: string;
  readonly score: number;
  readonly terms: readonly string[];
}

/**
 * Ranked search over skills, for catalogs too big to list (`@skill/search` implements it).
 * Results are names; a caller filters them through `SkillService.get(name, agent)`.
 */
export interface SkillSearch {
  /** Best first; `[]` for an empty or unmatched query, never a throw. `limit` defaults to the implementation's. */
  search(
    query: string,
    options?: { readonly limit?: number },
  ): readonly SkillHit[] | Promise<readonly SkillHit[]>;
  /** Makes the search hold exactly these skills (a search that can follow the registry). */
  replace?(skills: readonly SkillMetadata[]): unknown;
}
