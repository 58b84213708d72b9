import type { SkillError } from "@skill/core";
import type { SkillState } from "./cache-state.js";
import type { Budget, FetchLike } from "./http.js";
import type { RemoteSkillEntry } from "./manifest.js";
import type { Settings } from "./options.js";

/** What every download of one pull shares. */
export interface PullContext {
  /** The folder of the index: v0.1 files live at `<base><name>/<file>`. */
  readonly base: URL;
  readonly indexUrl: string;
  readonly packDir: string;
  readonly fetch: FetchLike;
  readonly settings: Settings;
  readonly signal: AbortSignal | undefined;
  readonly budget: Budget;
  /** Files counted against `maxPackFiles` so far (archives add theirs once unpacked). */
  readonly packFiles: { count: number };
  readonly limit: <T>(task: () => Promise<T>) => Promise<T>;
}

/** What one skill of a pull came to. */
export type Outcome =
  | { readonly kind: "unchanged"; readonly entry: RemoteSkillEntry; readonly state: SkillState }
  | {
      readonly kind: "staged";
      readonly entry: RemoteSkillEntry;
      readonly state: SkillState;
      /** Files of the cached copy that no longer matched what was pulled (edited, gone, added). */
      readonly restored?: readonly string[];
      /** The complete new skill folder, renamed into place on commit. */
      readonly staging: string;
      /** The scratch folder holding `staging`, removed after the commit. */
      readonly work: string;
    }
  | {
      readonly kind: "failed";
      readonly entry: RemoteSkillEntry;
      readonly error: SkillError;
      readonly kept?: SkillState;
    };
