import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import { abortError } from "../util/abort.js";

/** Longest stretch of synchronous reading before the event loop gets a turn, in ms. */
const SLICE_MS = 10;

/** Runs synchronous reads in slices so timers and I/O keep running during a big load. */
export class SliceReader {
  #start = performance.now();
  readonly #signal: AbortSignal | undefined;
  constructor(signal: AbortSignal | undefined) {
    this.#signal = signal;
  }
  /** True once the current slice is used up: then `await tick()`. */
  due(): boolean {
    return performance.now() - this.#start > SLICE_MS;
  }
  async tick(): Promise<void> {
    if (!this.due()) return;
    await yieldToEventLoop();
    if (this.#signal?.aborted) throw abortError(this.#signal);
    this.#start = performance.now();
  }
}

/** At most `max` tasks at once. */
export class Limiter {
  #active = 0;
  readonly #queue: (() => void)[] = [];
  readonly #max: number;
  constructor(max: number) {
    this.#max = max;
  }
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#active >= this.#max) await new Promise<void>((resolve) => this.#queue.push(resolve));
    this.#active++;
    try {
      return await task();
    } finally {
      this.#active--;
      this.#queue.shift()?.();
    }
  }
}
