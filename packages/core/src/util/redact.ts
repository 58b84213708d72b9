import { SkillError } from "../spec/errors.js";
import type { LogFields, Logger } from "../spec/logging.js";

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
 * A URL with its userinfo dropped when it is an http(s) URL (`https://token@host/…`,
 * `https://user:pass@host/…`), for what is stored and shared, such as a lock: a credential
 * comes from git's credential helper, never from a committed file. Other URLs (`ssh://git@…`,
 * whose user is no secret) and text that is not a URL are returned as they are.
 */
export function withoutCredentials(url: string): string {
  if (!/^https?:\/\//i.test(url) || !URL.canParse(url)) return url;
  const parsed = new URL(url);
  if (parsed.username === "" && parsed.password === "") return url;
  return url.replace(/^(https?:\/\/)[^/?#]*@/i, "$1");
}

/**
 * A URL as messages and logs print it: userinfo becomes `***@`, and the value of every query parameter
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
export function redactText(text: string): string {
  // Query secrets also where a server echoed a bare path (`/index.json?token=…` in a body).
  return redactQuery(text.replace(URL_IN_TEXT, (url) => redactUrl(url)));
}

/**
 * The error as a message may show it: message and `url` redacted. A `SkillError` whose text holds
 * nothing to hide is returned as is; otherwise a new one with the same code, path, field and
 * status, whose cause is the original's cause (the original's own message is what it hides).
 */
export function redactError(error: SkillError): SkillError {
  const message = redactText(error.message);
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
  if (cause instanceof Error && redactText(cause.message) !== cause.message) {
    const copy = new Error(redactText(cause.message));
    copy.name = cause.name;
    return copy;
  }
  return cause;
}

/** Any thrown value as a message may show it: a `SkillError` redacted, anything else untouched. */
export function redactThrown(error: unknown): unknown {
  return SkillError.isInstance(error) ? redactError(error) : error;
}

/** A logger whose every message, and every `url` field, is redacted before it is passed on. */
export function redactingLogger(logger: Logger): Logger {
  const fields = (f: LogFields | undefined) =>
    f && typeof f.url === "string" ? { ...f, url: redactUrl(f.url) } : f;
  const debug = logger.debug?.bind(logger);
  return {
    warn: (message, f) => logger.warn(redactText(message), fields(f)),
    ...(debug ? { debug: (message: string, f?: LogFields) => debug(redactText(message), fields(f)) } : {}),
  };
}
