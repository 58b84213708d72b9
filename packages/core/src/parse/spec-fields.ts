import type { ValidationTarget } from "../spec/types.js";

/** Fields of the Agent Skills specification; any other top-level key is `unknown-field:<key>`. */
export const SPEC_FIELDS: readonly string[] = [
  "name",
  "description",
  "license",
  "compatibility",
  "metadata",
  "allowed-tools",
];

/** Claude Code's own frontmatter fields, known to the `claude-code` target besides {@link SPEC_FIELDS}. */
export const CLAUDE_CODE_FIELDS: readonly string[] = [
  "when_to_use",
  "argument-hint",
  "arguments",
  "disable-model-invocation",
  "user-invocable",
  "disallowed-tools",
  "model",
  "effort",
  "context",
  "agent",
  "background",
  "hooks",
  "paths",
  "shell",
];

/** Limits of the Agent Skills specification, in code points. */
export const SPEC_LIMITS = { name: 64, description: 1024, compatibility: 500 } as const;

/** Every validation target, `spec` (the default) first. */
export const VALIDATION_TARGETS: readonly ValidationTarget[] = [
  "spec",
  "skills-ref",
  "claude-code",
  "codex",
  "gh-publish",
];
