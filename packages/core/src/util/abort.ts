import { SkillError } from "../spec/errors.js";

/** The error every aborted operation rejects with. */
export function abortedError(signal?: AbortSignal, what = "Skill loading"): SkillError {
  return new SkillError("ABORTED", `${what} was aborted`, signal ? { cause: signal.reason } : {});
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
    return Promise.reject(abortedError(signal));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortedError(signal));
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
