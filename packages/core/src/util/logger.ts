import type { EventBus, LogFields, Logger } from "../spec/logging.js";

/** A logger that drops everything: the default of every `logger` option. */
export const noopLogger: Logger = Object.freeze({ warn() {}, debug() {} });

/** Wraps a caller's logger so that a throwing logger never breaks the work it observes. */
export function guardLogger(logger: Logger | undefined): Logger {
  if (!logger) return noopLogger;
  return {
    warn(message: string, fields?: LogFields) {
      try {
        logger.warn(message, fields);
      } catch {
        // A logger is an observer: its failure must not change what loads.
      }
    },
    debug(message: string, fields?: LogFields) {
      try {
        logger.debug?.(message, fields);
      } catch {
        // As above.
      }
    },
  };
}

/** Publishes without letting a failing bus (or a rejected promise it returns) break a load. */
export function publish(bus: EventBus | undefined, topic: string, payload: unknown): void {
  if (!bus) return;
  try {
    const result = bus.publish(topic, payload);
    if (result && typeof (result as Promise<unknown>).catch === "function")
      (result as Promise<unknown>).catch(() => {});
  } catch {
    // A bus is an observer: its failure must not change what loads.
  }
}
