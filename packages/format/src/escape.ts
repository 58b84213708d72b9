const ENTITIES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&apos;",
};

// XML 1.0 allows #x9 #xA #xD [#x20-#xD7FF] [#xE000-#xFFFD] [#x10000-#x10FFFF]. With the `u`
// flag a surrogate range only matches lone surrogates; well-formed pairs are one code point.
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters XML 1.0 forbids
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDFFF]/gu;
// biome-ignore lint/suspicious/noControlCharactersInRegex: see NOT_XML
const XML_SPECIAL = /[&<>"']|[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDFFF]/gu;

/**
 * Escapes text for XML element content and attribute values: `&`, `<`, `>`, `"` and `'`
 * become entities, and characters XML 1.0 does not allow (C0 controls other than tab,
 * newline and carriage return; U+FFFE, U+FFFF; lone surrogates) are dropped. Everything
 * else, emoji and right-to-left text included, is kept as is.
 *
 * @example
 * escapeXml(`Use for "A & B" <files>`); // 'Use for &quot;A &amp; B&quot; &lt;files&gt;'
 * escapeXml("bell\u0007"); // "bell"
 */
export function escapeXml(text: string): string {
  return text.replace(XML_SPECIAL, (c) => ENTITIES[c] ?? "");
}

/** Drops the characters XML 1.0 does not allow (see {@link escapeXml}) and nothing else. */
export function dropInvalidXmlChars(text: string): string {
  return text.replace(NOT_XML, "");
}

// U+0085 (NEL) is a line break but not part of JS `\s`.
const WHITESPACE_RUN = /[\s\u0085]+/g;
const LINE_BREAK = /[\n\r\v\f\u0085\u2028\u2029]/;

/**
 * One line of markdown text: each run of whitespace holding a line break becomes one space,
 * other runs stay as they are; characters XML 1.0 forbids are dropped (no NUL or escape
 * codes reach a prompt or a terminal).
 */
export function toOneLine(text: string): string {
  return dropInvalidXmlChars(text.replace(WHITESPACE_RUN, (run) => (LINE_BREAK.test(run) ? " " : run)));
}
