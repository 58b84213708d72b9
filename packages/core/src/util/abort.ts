import { SkillError, type SkillErrorDetails } from "../spec/errors.js";

/**
 * The error an aborted operation rejects with: code `ABORTED`, the signal's `reason` as its
 * `cause`. `message` says what stopped; `details` may name the path or URL concerned.
 *
 * @example
 * if (signal?.aborted) throw abortError(signal, "Skill audit was aborted");
 */
export function abortError(
  signal?: AbortSignal,
  message = "Skill loading was aborted",
  details: Omit<SkillErrorDetails, "cause"> = {},
): SkillError {
  return new SkillError("ABORTED", message, signal ? { ...details, cause: signal.reason } : details);
}

/** Whether `error` is the `ABORTED` of this very `signal` (not one a source made up). */
export function isAbortOf(error: unknown, signal: AbortSignal | undefined): boolean {
  return SkillError.isInstance(error) && error.code === "ABORTED" && signal?.aborted === true;
}

/**
 * Rejects as soon as `signal` aborts, even when `work` never settles. `work` is always
 * observed, so its own later rejection is never unhandled.
 */
export function raceAbort<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) {
    work.catch(() => {});
    return Promise.reject(abortError(signal));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortError(signal));
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
