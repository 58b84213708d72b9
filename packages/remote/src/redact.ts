import { type LogFields, type Logger, SkillError } from "@skill/core";

/** Query parameters whose value is a credential: tokens, keys, signatures, passwords, sessions. */
const SECRET_PARAM = /token|secret|passw|pwd|auth|key|sig|credential|session|jwt|bearer|ticket|otp/i;
const HIDDEN = "***";
/** A URL inside free text: a scheme, `//`, then anything up to white space or a quote. */
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'`<>]*/gi;
/** `scheme://` and the userinfo after it: everything up to the last `@` before the path. */
const USERINFO = /^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i;

/** Values of credential-named query parameters (`?token=…`, `&sig=…`), wherever they are. */
function redactQuery(text: string): string {
  return text.replace(/([?&])([^=&#\s"'`<>?]*)=([^&#\s"'`<>),;]*)/g, (all, sep: string, name: string) => {
    let decoded = name;
    try {
      decoded = decodeURIComponent(name);
    } catch {
      // A malformed escape: judge the name as written.
    }
    return SECRET_PARAM.test(decoded) ? `${sep}${name}=${HIDDEN}` : all;
  });
}

/**
 * A URL as remote prints it: userinfo becomes `***@`, and the value of every query parameter
 * whose name says it is a credential (`token`, `key`, `sig`, `password`, `X-Amz-Signature`…)
 * becomes `***`. Works on text that is not a valid URL too (an `INVALID_URL` quotes one).
 *
 * @example
 * redactUrl("https://me:hunter2@example.com/index.json?team=a&token=abc");
 * // "https://***@example.com/index.json?team=a&token=***"
 */
export function redactUrl(url: string): string {
  let out = url.replace(USERINFO, `$1${HIDDEN}@`);
  if (out === url && /^[a-z][a-z0-9+.-]*:\/\//i.test(url) && !URL.canParse(url)) {
    // Not a URL (a "/" inside a password, say): everything up to its last "@" may be userinfo.
    const at = url.lastIndexOf("@");
    const start = url.indexOf("//") + 2;
    const stop = url.search(/[?#]/);
    if (at > start && (stop === -1 || at < stop)) out = `${url.slice(0, start)}${HIDDEN}${url.slice(at)}`;
  }
  return redactQuery(out);
}

/**
 * Text with every URL in it passed through {@link redactUrl}, and credential-named query values
 * hidden wherever they appear: for messages and log lines.
 */
export function redact(text: string): string {
  // Query secrets also where a server echoed a bare path (`/index.json?token=…` in a body).
  return redactQuery(text.replace(URL_IN_TEXT, (url) => redactUrl(url)));
}

/**
 * The error as remote reports it: message and `url` redacted. A `SkillError` whose text holds
 * nothing to hide is returned as is; otherwise a new one with the same code, path, field and
 * status, whose cause is the original's cause (the original's own message is what it hides).
 */
export function redactError(error: SkillError): SkillError {
  const message = redact(error.message);
  const url = error.url === undefined ? undefined : redactUrl(error.url);
  if (message === error.message && url === error.url) return error;
  const cause = (error as { cause?: unknown }).cause;
  return new SkillError(error.code, message, {
    ...(cause === undefined ? {} : { cause: redactCause(cause) }),
    ...(error.path === undefined ? {} : { path: error.path }),
    ...(error.field === undefined ? {} : { field: error.field }),
    ...(url === undefined ? {} : { url }),
    ...(error.status === undefined ? {} : { status: error.status }),
  });
}

/** A cause whose message would repeat what its error hides is replaced by a redacted copy. */
function redactCause(cause: unknown): unknown {
  if (SkillError.isInstance(cause)) return redactError(cause);
  if (cause instanceof Error && redact(cause.message) !== cause.message) {
    const copy = new Error(redact(cause.message));
    copy.name = cause.name;
    return copy;
  }
  return cause;
}

/** Any thrown value as remote reports it: a `SkillError` redacted, anything else untouched. */
export function redactThrown(error: unknown): unknown {
  return SkillError.isInstance(error) ? redactError(error) : error;
}

/** A logger whose every message, and every `url` field, is redacted before it is passed on. */
export function redactingLogger(logger: Logger): Logger {
  const fields = (f: LogFields | undefined) =>
    f && typeof f.url === "string" ? { ...f, url: redactUrl(f.url) } : f;
  const debug = logger.debug?.bind(logger);
  return {
    warn: (message, f) => logger.warn(redact(message), fields(f)),
    ...(debug ? { debug: (message: string, f?: LogFields) => debug(redact(message), fields(f)) } : {}),
  };
}
