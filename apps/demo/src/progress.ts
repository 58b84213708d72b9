import cliProgress from "cli-progress";

/** Work shorter than this shows no progress line: a line that flashes and goes is noise. */
export const PROGRESS_AFTER_MS = 1_000;

/** Values a progress line's format names (`{detail}`, `{skills}` …) beside `{value}` and `{total}`. */
type Payload = Readonly<Record<string, string | number>>;

/**
 * A progress line on stderr, as a long command runs. Drawn by cli-progress, which draws only
 * when the stream is a terminal (a pipe or a log gets nothing); and only once the work has run
 * for `afterMs`, then from where it has got to. `stop()` clears it, and must be called.
 */
export interface Progress {
  /** The amount of work, when it is known or changes. */
  total(total: number): void;
  update(done: number, payload?: Payload): void;
  increment(payload?: Payload): void;
  /** New values for the format's names, the count unchanged. */
  note(payload: Payload): void;
  stop(): void;
}

export interface ProgressOptions {
  /** Default {@link PROGRESS_AFTER_MS}. */
  readonly afterMs?: number;
  /** Default `process.stderr`. */
  readonly stream?: NodeJS.WritableStream;
  /** `false` draws nothing (`--json`, `--quiet`). Default `true`. */
  readonly enabled?: boolean;
}

/** A {@link Progress} with `format` (cli-progress's: `{bar} {value}/{total} {detail}`). */
export function progressLine(format: string, options: ProgressOptions = {}): Progress {
  let [done, total, payload] = [0, 0, {} as Payload];
  let bar: cliProgress.SingleBar | undefined;
  const show = () => {
    bar = new cliProgress.SingleBar(
      {
        format,
        hideCursor: true,
        clearOnComplete: true,
        stream: options.stream ?? process.stderr,
      },
      cliProgress.Presets.shades_classic,
    );
    bar.start(total, done, payload);
  };
  const timer =
    options.enabled === false ? undefined : setTimeout(show, options.afterMs ?? PROGRESS_AFTER_MS);
  timer?.unref();
  return {
    total(n) {
      total = n;
      bar?.setTotal(n);
    },
    update(n, more = {}) {
      [done, payload] = [n, { ...payload, ...more }];
      bar?.update(n, payload);
    },
    increment(more = {}) {
      this.update(done + 1, more);
    },
    note(more) {
      this.update(done, more);
    },
    stop() {
      clearTimeout(timer);
      bar?.stop();
      bar = undefined;
    },
  };
}
