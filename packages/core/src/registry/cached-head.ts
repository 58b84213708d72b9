import type { SkillHead } from "../spec/skill-source.js";
import type { Diagnostic } from "../spec/types.js";

/**
 * A finding as a cached head keeps it: a field whose text holds the file's path is the list of
 * the parts around it, so that files with the same findings have heads with the same findings
 * (a `fileHeadCache` stores those once).
 */
export type StoredDiagnostic = { readonly [K in keyof Diagnostic]: Diagnostic[K] | readonly string[] };

/** `d` as a cached head keeps it for the file at `location`. */
export function pathFree(d: Diagnostic, location: string): StoredDiagnostic {
  let stored: Record<string, unknown> | undefined;
  for (const key of Object.keys(d)) {
    const value = (d as unknown as Record<string, unknown>)[key];
    if (typeof value === "string" && value.includes(location)) {
      stored ??= { ...d };
      stored[key] = value.split(location);
    }
  }
  return (stored ?? d) as StoredDiagnostic;
}

/** A finding of a cached head, for the file at `location` again; `undefined` when it is not one. */
export function located(d: StoredDiagnostic, location: string): Diagnostic | undefined {
  if (typeof d !== "object" || d === null) return undefined;
  let found: Record<string, unknown> | undefined;
  for (const key of Object.keys(d)) {
    const value = (d as Record<string, unknown>)[key];
    if (Array.isArray(value)) {
      found ??= { ...d };
      found[key] = value.join(location);
    }
  }
  return found ? (Object.freeze(found) as unknown as Diagnostic) : (d as Diagnostic);
}

/** A head as the service stores it in a {@link HeadCache}: the head plus what the parse found. */
export interface CachedHead extends SkillHead {
  readonly diagnostics?: readonly StoredDiagnostic[];
  /** Fingerprint of the load rules the head was parsed under. */
  readonly rules?: string;
  /**
   * Under `codexPolicy`: the state of the skill's `agents/openai.yaml` when the head was stored
   * (dev, ino, size, mtimeMs, ctimeMs; `null`: there was none), part of the head's key, and whether it
   * made the skill user-only.
   */
  readonly codex?: { readonly sidecar: readonly number[] | null; readonly userOnly?: true };
}
