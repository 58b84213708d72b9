import type { LoadRules } from "@skill/core";
import type { ScanOptions } from "./scan-options.js";

/** Which agent's layout to reproduce: one preset per agent (see the README for each one's rules). */
export type DiscoveryPreset =
  | "default"
  | "agents"
  | "opencode"
  | "claude-code"
  | "codex"
  | "gemini"
  | "copilot"
  | "cursor"
  | "pi"
  | "goose"
  | "amp";

/** Every preset, in the order `compareAgents` reports them by default. */
export const DISCOVERY_PRESETS: readonly DiscoveryPreset[] = Object.freeze([
  "default",
  "agents",
  "opencode",
  "claude-code",
  "codex",
  "gemini",
  "copilot",
  "cursor",
  "pi",
  "goose",
  "amp",
] as const);

/** The limits an agent applies inside each of its roots: these options of {@link ScanOptions}. */
export type RootLimits = Pick<
  ScanOptions,
  | "maxDepth"
  | "maxDirs"
  | "skipDotDirs"
  | "followSymlinkFiles"
  | "leafSkills"
  | "enterNodeModules"
  | "minDepth"
  | "fileNames"
  | "flatFiles"
>;

/** Each agent's rules inside a root, as measured (scripts/agents-real; the README says which version). */
const PRESET_LIMITS: Readonly<Partial<Record<DiscoveryPreset, RootLimits>>> = {
  opencode: { enterNodeModules: true },
  "claude-code": { maxDepth: 1, minDepth: 1 },
  codex: {
    maxDepth: 6,
    maxDirs: 2000,
    skipDotDirs: true,
    followSymlinkFiles: false,
    enterNodeModules: true,
  },
  gemini: { maxDepth: 1, skipDotDirs: true },
  copilot: { skipDotDirs: true, leafSkills: true, enterNodeModules: true },
  pi: { skipDotDirs: true, leafSkills: true },
  // Amp 0.0.1790142911 loads a lower-case skill.md in every root (`amp skill list --json`).
  amp: { maxDepth: 5, fileNames: ["SKILL.md", "skill.md"] },
};

/** How each agent reads a SKILL.md, beyond the specification's defaults, as measured. */
const PRESET_RULES: Readonly<Partial<Record<DiscoveryPreset, LoadRules>>> = {
  opencode: { requireDescription: false },
  "claude-code": {
    identity: "folder",
    requireDescription: false,
    descriptionFallback: "body",
    requireFrontmatter: false,
    brokenYaml: "ignore",
  },
  // Codex 0.171 refuses a name over 64 characters (`invalid name: exceeds maximum length of 64
  // characters`).
  // A plain description holding `: ` is quoted on its own line and read again
  // (`description: Use when: x` loads); YAML broken otherwise refuses.
  // Codex 0.171 leaves a skill whose agents/openai.yaml says `policy: { allow_implicit_invocation:
  // false }` out of the model's prompt (`codex debug prompt-input`), and lists it still
  // (`skills/list`: "enabled": true); it keeps a `disable-model-invocation: true` skill, one with
  // `metadata.opencode/autoinvoke: false`, and one whose sidecar says the string "false" in the
  // prompt (scripts/agents-real).
  codex: {
    nameFallback: "folder",
    rejectBom: true,
    rejectLongName: true,
    brokenYaml: "quote",
    codexPolicy: true,
  },
  // Gemini CLI 0.61 reads name and description line by line when its YAML parser refuses.
  gemini: { requireDescription: "field", rejectBom: true, brokenYaml: "lines" },
  copilot: {
    nameFallback: "folder",
    requireDescription: false,
    rejectLongName: true,
    rejectLongDescription: true,
    // Copilot CLI 1.0.102: "Skill name must start with an ASCII letter or number and contain only
    // ASCII letters (a-z, A-Z), numbers, hyphens, underscores, dots, colons, and spaces".
    rejectInvalidName: "loose",
    brokenYaml: "refuse",
  },
  pi: { nameFallback: "folder", rejectBom: true, brokenYaml: "refuse" },
  // Amp 0.0.1790142911 refuses a name over 64 (`Invalid skill name`).
  amp: { rejectInvalidName: true, rejectLongName: true, brokenYaml: "refuse" },
};

/**
 * What an agent does with two skills of one name that a registry cannot copy: Codex lists
 * every copy to the model; opencode keeps whichever parse finishes last (it changes between
 * runs). The preset keeps one deterministic winner; `compareAgents` says this in `detail`.
 */
const PRESET_DUPLICATES: Readonly<Partial<Record<DiscoveryPreset, "duplicate-listed" | "nondeterministic">>> =
  {
    codex: "duplicate-listed",
    opencode: "nondeterministic",
  };

/** The limits the agent of `preset` applies inside each root, as measured (copied; `undefined`: none). */
export function presetLimits(preset: DiscoveryPreset): RootLimits | undefined {
  const limits = PRESET_LIMITS[preset];
  return limits === undefined ? undefined : { ...limits };
}

/** How the agent of `preset` treats duplicate names, when no single winner says it (see {@link compareAgents}). */
export function presetDuplicates(
  preset: DiscoveryPreset,
): "duplicate-listed" | "nondeterministic" | undefined {
  return PRESET_DUPLICATES[preset];
}

/** The load rules of a preset (copied). */
export function presetRules(preset: DiscoveryPreset): LoadRules {
  return { ...(PRESET_RULES[preset] ?? {}) };
}
