import { quote } from "../spec/errors.js";
import { isMapping } from "../util/mapping.js";

type Fields = Readonly<Record<string, unknown>>;

/**
 * A way a skill says "user-only" (keep it from the model; people may still invoke it):
 * `disable-model-invocation` (`disable-model-invocation: true` in SKILL.md: Claude Code,
 * Cursor), `opencode/autoinvoke` (`metadata.opencode/autoinvoke: false`: opencode v2),
 * `openai.yaml` (`policy.allow_implicit_invocation: false` in the skill's
 * `agents/openai.yaml`: Codex).
 */
export type UserOnlySpelling = "disable-model-invocation" | "opencode/autoinvoke" | "openai.yaml";

/**
 * What an agent does with a skill that says "user-only" in the spellings it uses: `honoured`
 * (the agent reads one of them and keeps the skill from its model), `ignored` (it reads none:
 * its model sees the skill and may invoke it on its own), `unreachable` (it lists the skill but
 * nobody can invoke it, the user included).
 */
export type UserOnlyVerdict = "honoured" | "ignored" | "unreachable";

/** `true`, `yes` (any case) or the YAML boolean. */
function isTrue(value: unknown): boolean {
  if (value === true) return true;
  if (typeof value !== "string") return false;
  const lower = value.trim().toLowerCase();
  return lower === "true" || lower === "yes";
}

/** Claude Code's spelling (Cursor reads it too): `disable-model-invocation: true` (or `"true"`, `"yes"`). */
export function disablesModelInvocation(frontmatter: Fields): boolean {
  return isTrue(frontmatter["disable-model-invocation"]);
}

/**
 * opencode v2's spelling: `metadata.opencode/autoinvoke` set to `false` or `"false"`. Read by
 * opencode v2's skill loader (anomalyco/opencode, `packages/core/src/config/plugin/skill-file.ts`,
 * `parse`: `metadataBoolean(frontmatter.metadata, "opencode/autoinvoke")`, which also takes
 * `no`, `off` and `0`, and falls back to `disable-model-invocation`). The opencode 1.18.33 that
 * `scripts/agents-real` pins reads neither key: its binary holds neither string.
 */
export function opencodeUserOnly(frontmatter: Fields): boolean {
  const metadata = frontmatter.metadata;
  if (!isMapping(metadata)) return false;
  const value = metadata["opencode/autoinvoke"];
  return value === false || (typeof value === "string" && value.trim().toLowerCase() === "false");
}

/**
 * The spellings of "user-only" a skill uses: those of its frontmatter, and `openai.yaml` when
 * its Codex sidecar says so (`codexUserOnly`, known only where it was read).
 */
export function userOnlySpellings(frontmatter: Fields, codexUserOnly = false): UserOnlySpelling[] {
  const spellings: UserOnlySpelling[] = [];
  if (disablesModelInvocation(frontmatter)) spellings.push("disable-model-invocation");
  if (opencodeUserOnly(frontmatter)) spellings.push("opencode/autoinvoke");
  if (codexUserOnly) spellings.push("openai.yaml");
  return spellings;
}

/** How one agent reads "user-only". */
interface Reader {
  /** The agent as a sentence names it, with the version the rule was seen in. */
  readonly label: string;
  /** The spellings it honours. */
  readonly reads: readonly UserOnlySpelling[];
  /** Spellings that make it refuse the skill to everyone, the user included. */
  readonly unreachable?: readonly UserOnlySpelling[];
}

/**
 * Which agent honours which spelling, by the agent's preset and validation target name. Only
 * agents whose reading is known are listed; any other agent gets no verdict.
 * - Claude Code 2.1.332: its frontmatter schema says of `disable-model-invocation` "If true,
 *   the model cannot invoke this via the Skill tool".
 * - Codex 0.171: `codex debug prompt-input` (the model's prompt, offline) leaves out a skill
 *   whose `agents/openai.yaml` says `allow_implicit_invocation: false`, and keeps one with
 *   `disable-model-invocation: true`, `metadata.opencode/autoinvoke: false` or the string
 *   `"false"` in its sidecar (`scripts/agents-real`).
 * - opencode 1.18.33, Gemini CLI 0.61: their code holds neither frontmatter key.
 * - pi 0.73: `disable-model-invocation: true` leaves the skill out of the prompt.
 * - Copilot CLI: lists a `disable-model-invocation: true` skill, but its `skill` tool answers
 *   `Skill not found` for it, also when the user asks for it (github/copilot-cli#4438, 1.0.79).
 * - Cursor: reads `disable-model-invocation` (its documentation).
 */
const READERS: Readonly<Record<string, Reader>> = {
  "claude-code": { label: "Claude Code", reads: ["disable-model-invocation"] },
  codex: { label: "Codex 0.171", reads: ["openai.yaml"] },
  opencode: { label: "opencode 1.18", reads: [] },
  gemini: { label: "Gemini CLI 0.61", reads: [] },
  pi: { label: "pi", reads: ["disable-model-invocation"] },
  copilot: { label: "Copilot CLI", reads: [], unreachable: ["disable-model-invocation"] },
  cursor: { label: "Cursor", reads: ["disable-model-invocation"] },
};

/** Each spelling as a sentence writes it. */
const WRITTEN: Readonly<Record<UserOnlySpelling, string>> = {
  "disable-model-invocation": "disable-model-invocation: true",
  "opencode/autoinvoke": "metadata.opencode/autoinvoke: false",
  "openai.yaml": "policy.allow_implicit_invocation: false in agents/openai.yaml",
};

/**
 * What `agent` (a discovery preset or validation target name) does with a skill that uses
 * these spellings of "user-only"; `undefined` when it uses none, or the agent's reading is not
 * known.
 */
export function userOnlyVerdict(
  agent: string,
  spellings: readonly UserOnlySpelling[],
): UserOnlyVerdict | undefined {
  const reader = Object.hasOwn(READERS, agent) ? READERS[agent] : undefined;
  if (reader === undefined || spellings.length === 0) return undefined;
  if (spellings.some((s) => reader.unreachable?.includes(s))) return "unreachable";
  return spellings.some((s) => reader.reads.includes(s)) ? "honoured" : "ignored";
}

/**
 * One sentence on what `agent` does with the skill `name` when it ignores its "user-only" or
 * makes it unreachable (see {@link userOnlyVerdict}); `undefined` when there is nothing to say.
 *
 * @example
 * userOnlyNote("codex", ["disable-model-invocation"], "deploy");
 * // "Codex 0.171 does not read disable-model-invocation: true: its model sees "deploy" and may
 * //  invoke it on its own (it reads policy.allow_implicit_invocation: false in agents/openai.yaml)"
 */
export function userOnlyNote(
  agent: string,
  spellings: readonly UserOnlySpelling[],
  name: string,
): string | undefined {
  const verdict = userOnlyVerdict(agent, spellings);
  const reader = READERS[agent];
  if (verdict === undefined || verdict === "honoured" || reader === undefined) return undefined;
  if (verdict === "unreachable") {
    return `${reader.label} lists ${quote(name)} but refuses it to everyone, the user included, for ${WRITTEN["disable-model-invocation"]} (github/copilot-cli#4438): the skill is unreachable there`;
  }
  const used = spellings.map((s) => WRITTEN[s]).join(" or ");
  const own = reader.reads[0];
  const hint =
    own === undefined
      ? `${reader.label} has no way to keep a skill from its model`
      : `it reads ${WRITTEN[own]}`;
  return `${reader.label} does not read ${used}: its model sees ${quote(name)} and may invoke it on its own (${hint})`;
}
