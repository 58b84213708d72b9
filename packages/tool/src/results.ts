import { isUtf8 } from "node:buffer";
import { errorMessage, formatBytes, SkillError } from "@skill/core";

/** What a tool call gives back to the model. */
export interface ToolResult {
  readonly text: string;
  /** `true` when the call did not do what was asked; `text` says why, for the model. */
  readonly isError: boolean;
}

/** A name or query quoted for a sentence: JSON-escaped, cut to a readable length. */
export function quoted(text: string): string {
  const cut = text.length > 100 ? `${text.slice(0, 97)}...` : text;
  return JSON.stringify(cut);
}

export function ok(text: string): ToolResult {
  return { text, isError: false };
}

export function fail(text: string): ToolResult {
  return { text, isError: true };
}

/** Why a skill that the model may load did not load (its file gone or changed aside). */
export function loadFailure(name: string, error: unknown): ToolResult {
  const code = SkillError.isInstance(error) ? error.code : undefined;
  if (code === "ABORTED") return fail(`Loading the skill ${quoted(name)} was cancelled.`);
  if (code === "NOT_FOUND") {
    return fail(
      `The skill ${quoted(name)} changed since it was listed and was not loaded (${errorMessage(error)}). It may load once the skills are reloaded; go on without it for now.`,
    );
  }
  if (code === "INTEGRITY_ERROR") {
    return fail(
      `The skill ${quoted(name)} was not loaded: what was read does not match what its source listed (${errorMessage(error)}).`,
    );
  }
  return fail(`The skill ${quoted(name)} could not be loaded: ${errorMessage(error)}`);
}

/** Why a bundled file could not be read (a path the skill does not have aside). */
export function readFailure(name: string, path: string, error: unknown): ToolResult {
  const code = SkillError.isInstance(error) ? error.code : undefined;
  if (code === "ABORTED") return fail(`Reading ${quoted(path)} of the skill ${quoted(name)} was cancelled.`);
  if (code === "UNSAFE_PATH") {
    return fail(
      `${quoted(path)} is not a path inside the skill ${quoted(name)}: give the file's path relative to the skill's folder, as the loaded skill lists it.`,
    );
  }
  if (code === "LIMIT_EXCEEDED") {
    return fail(
      `${quoted(path)} of the skill ${quoted(name)} is too large to read here (${errorMessage(error)}).`,
    );
  }
  return fail(`${quoted(path)} of the skill ${quoted(name)} could not be read: ${errorMessage(error)}`);
}

/** A bundled file as the model reads it: its text, or a sentence for a binary or empty file. */
export function fileText(name: string, path: string, bytes: Uint8Array): ToolResult {
  if (!isUtf8(bytes) || bytes.includes(0)) {
    return ok(
      `${quoted(path)} of the skill ${quoted(name)} is a binary file (${formatBytes(bytes.length)}); it cannot be shown as text.`,
    );
  }
  const text = new TextDecoder().decode(bytes);
  return ok(text === "" ? `${quoted(path)} of the skill ${quoted(name)} is empty.` : text);
}
