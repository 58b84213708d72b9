import { compareCodeUnits, errorMessage, type Logger } from "@skill/core";

/** What happened to one `SKILL.md`. */
export interface SkillChange {
  readonly type: "added" | "changed" | "removed";
  /** Absolute path of the SKILL.md, as reached under its root. */
  readonly path: string;
}

/** Changes are reported at the latest this many debounce periods after the first one. */
const MAX_WAIT_FACTOR = 10;

/** Merges a new event into the one pending for the same file. `undefined`: nothing happened. */
function merge(
  previous: SkillChange["type"] | undefined,
  next: SkillChange["type"],
): SkillChange["type"] | undefined {
  if (previous === undefined) return next;
  if (previous === "added") return next === "removed" ? undefined : "added";
  if (previous === "removed") return next === "removed" ? "removed" : "changed";
  return next === "removed" ? "removed" : "changed";
}

/**
 * Changes waiting to be reported: one per file (merged), handed to the listener sorted by path
 * after `debounceMs` of quiet, and at least every `10 × debounceMs` under a steady stream.
 */
export class ChangeBatch {
  readonly #listener: (changes: readonly SkillChange[]) => void;
  readonly #debounceMs: number;
  readonly #logger: Logger;
  #pending = new Map<string, SkillChange["type"]>();
  #timer: NodeJS.Timeout | undefined;
  #firstPendingAt = 0;
  #closed = false;
  readonly #flush = () => {
    this.#timer = undefined;
    if (this.#closed || this.#pending.size === 0) return;
    const batch = [...this.#pending].sort(([a], [b]) => compareCodeUnits(a, b));
    this.#pending = new Map();
    try {
      this.#listener(batch.map(([path, type]) => ({ type, path })));
    } catch (error) {
      this.#logger.warn(`Skill watch listener threw: ${errorMessage(error)}`, {});
    }
  };

  constructor(listener: (changes: readonly SkillChange[]) => void, debounceMs: number, logger: Logger) {
    this.#listener = listener;
    this.#debounceMs = debounceMs;
    this.#logger = logger;
  }

  record(type: SkillChange["type"], path: string): void {
    if (this.#closed) return;
    if (this.#pending.size === 0) this.#firstPendingAt = Date.now();
    const next = merge(this.#pending.get(path), type);
    if (next === undefined) this.#pending.delete(path);
    else this.#pending.set(path, next);
    if (this.#timer) clearTimeout(this.#timer);
    // A steady stream of writes must not postpone the report forever.
    const latest = this.#firstPendingAt + MAX_WAIT_FACTOR * this.#debounceMs - Date.now();
    this.#timer = setTimeout(this.#flush, Math.max(0, Math.min(this.#debounceMs, latest)));
  }

  /** Drops what is pending; nothing is reported after this. */
  close(): void {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#pending.clear();
  }
}
