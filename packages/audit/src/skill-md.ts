import { printable } from "@skill/core";
import { excerpt, type TextFile } from "./text.js";
import type { AuditFinding } from "./types.js";
import { describeHidden, hiddenChars } from "./unicode.js";

/** `hidden-unicode`: one finding per line of SKILL.md holding invisible characters, code blocks aside. */
export function hiddenUnicodeFindings(file: TextFile, code: readonly boolean[]): AuditFinding[] {
  const byLine = new Map<number, number[]>();
  for (const { index, cp } of hiddenChars(file.text)) {
    const line = file.lineAt(index);
    if (code[line]) continue;
    const list = byLine.get(line) ?? [];
    list.push(cp);
    byLine.set(line, list);
  }
  return [...byLine].map(([line, cps]) => ({
    rule: "hidden-unicode",
    severity: "error",
    path: "SKILL.md",
    line,
    message: `${describeHidden(cps)}: invisible to readers, read by the model`,
  }));
}

/** Tooling directives that are not text for anyone: `<!-- prettier-ignore -->` and friends. */
const DIRECTIVE =
  /^(?:prettier-ignore(?:-start|-end)?|markdownlint-[\w-]+(?:\s+[\w,-]+)*|eslint-[\w-]+(?:\s+[\w/,-]+)*|textlint-[\w-]+(?:\s+[\w/,-]+)*|cspell:[\w\s,-]{0,60}|vale\s+[\w.,-]+(?:\s*=\s*\w+)?|\/?toc|omit in toc|keep-sorted\s+(?:start|end)[\w\s=-]{0,40})$/i;

/** `html-comment-instructions`: text in `<!-- -->` in the body, outside code blocks and code spans. */
export function htmlCommentFindings(
  file: TextFile,
  code: readonly boolean[],
  bodyLine: number,
): AuditFinding[] {
  // Blank out code (same length, newlines kept) so offsets still map to lines.
  const lines: string[] = [];
  for (let n = bodyLine; n <= file.lineCount; n++) {
    const text = file.line(n);
    lines.push(
      code[n] ? " ".repeat(text.length) : text.replace(/(`{1,3})[^`]*?\1/g, (s) => " ".repeat(s.length)),
    );
  }
  const body = lines.join("\n");
  const offset = file.lineStart(bodyLine);
  const findings: AuditFinding[] = [];
  const comment = /<!--([\s\S]*?)(?:-->|$(?![\s\S]))/g;
  for (let m = comment.exec(body); m !== null; m = comment.exec(body)) {
    const inner = (m[1] ?? "").trim();
    if (m[0] === "") {
      comment.lastIndex++;
      continue;
    }
    if (inner === "" || DIRECTIVE.test(inner)) continue;
    const closed = m[0].endsWith("-->");
    findings.push({
      rule: "html-comment-instructions",
      severity: "warning",
      path: "SKILL.md",
      line: file.lineAt(offset + m.index),
      message: `${closed ? "an HTML comment" : "an unclosed HTML comment"} hides text from readers, not from the model: ${printable(JSON.stringify(excerpt(inner)))}`,
    });
  }
  return findings;
}

/** Where a pattern was found: its offset and the text it matched. */
interface Hit {
  readonly index: number;
  readonly text: string;
}

function first(pattern: RegExp): (text: string) => Hit | null {
  return (text) => {
    const m = pattern.exec(text);
    return m ? { index: m.index, text: m[0] } : null;
  };
}

/** The name of a chat or prompt tag, followed by `>` or a space (then its attributes). */
const MARKUP_NAME =
  /<\/?\s*(?:system|important|system[-_]prompt|system[-_]reminder|assistant|developer|instructions?|available_skills|skill_content|skills|tool_call|tool_result|function_calls?|function_results|im_start|im_end|antml:[\w-]+)(?=[\s>])/gi;

/**
 * Chat or prompt markup: `<system>`, `</available_skills>`, `<system foo="x">` (a tag name,
 * then `>` before the line ends). Not one regex: `(?:\s[^>\n]*)?>` would scan to the end of
 * the line again from each of 100,000 unclosed `<system ` on it. The first `>` or newline
 * after a space decides, and is looked for once for all the tags before it.
 */
function markupTag(text: string): Hit | null {
  MARKUP_NAME.lastIndex = 0;
  let stop = -1;
  for (let m = MARKUP_NAME.exec(text); m !== null; m = MARKUP_NAME.exec(text)) {
    const end = m.index + m[0].length;
    if (text[end] === ">") return { index: m.index, text: text.slice(m.index, end + 1) };
    if (stop <= end) {
      stop = end + 1;
      while (stop < text.length && text[stop] !== ">" && text[stop] !== "\n") stop++;
    }
    if (text[stop] === ">") return { index: m.index, text: text.slice(m.index, stop + 1) };
  }
  return null;
}

const INJECTION: readonly { readonly find: (text: string) => Hit | null; readonly what: string }[] = [
  {
    what: "tells the model to drop its instructions",
    find: first(
      /\b(?:ignore|disregard|forget|override|bypass)\s+(?:(?:all|any|the|of|your)\s+)*(?:previous|prior|preceding|above|earlier|former|other|existing|system|developer|safety)\s+(?:instructions?|prompts?|rules|directions|directives|guidelines|messages|constraints|policies)\b/i,
    ),
  },
  {
    what: "tells the model to drop its instructions",
    find: first(
      /\b(?:ignore|disregard|forget|override|bypass)\s+(?:all|any|your)\s+(?:(?:the|of|your)\s+)*(?:instructions?|prompts?|rules|directions|directives|guidelines|constraints|policies)\b/i,
    ),
  },
  { what: "redefines the model", find: first(/\byou\s+are\s+now\b/i) },
  {
    what: "asks the model to hide something from the user",
    find: first(
      /\b(?:do\s+not|don't|never)\s+(?:tell|inform|alert|reveal\s+(?:this\s+)?to|mention\s+(?:this\s+)?to)\s+the\s+user\b/i,
    ),
  },
  { what: "holds chat or prompt markup", find: markupTag },
  {
    what: "holds chat or prompt markup",
    find: first(/<\|[a-z_]{2,30}\|>|\[\/?(?:INST|SYS)\]|<<\/?SYS>>/i),
  },
];

/** Lines (1-based, inclusive) holding the value of top-level `key` in the frontmatter. */
export function fieldLines(
  file: TextFile,
  key: string,
  closingLine: number,
): { from: number; to: number } | undefined {
  const keyLine = new RegExp(`^(["']?)${key}\\1\\s*:(?:\\s|$)`);
  for (let n = 2; n < closingLine; n++) {
    if (!keyLine.test(file.line(n))) continue;
    let to = n;
    while (to + 1 < closingLine && !/^[^\s#]/.test(file.line(to + 1))) to++;
    return { from: n, to };
  }
  return undefined;
}

/**
 * `description-injection`: text in `description` (or `when_to_use`, which Claude Code lists
 * with it) that talks to the model instead of describing the skill. Every agent puts these
 * fields in its system prompt.
 */
export function injectionFindings(
  file: TextFile,
  frontmatter: Readonly<Record<string, unknown>>,
  closingLine: number,
): AuditFinding[] {
  const findings: AuditFinding[] = [];
  for (const key of ["description", "when_to_use"]) {
    const value = frontmatter[key];
    if (typeof value !== "string") continue;
    const lines = fieldLines(file, key, closingLine);
    const raw = lines
      ? file.text.slice(file.lineStart(lines.from), file.lineStart(lines.to) + file.line(lines.to).length)
      : "";
    const seen = new Set<number>();
    for (const { find, what } of INJECTION) {
      const inRaw = lines ? find(raw) : null;
      const hit = inRaw ?? find(value);
      if (!hit) continue;
      const line = inRaw && lines ? file.lineAt(file.lineStart(lines.from) + inRaw.index) : lines?.from;
      if (line !== undefined && seen.has(line)) continue;
      if (line !== undefined) seen.add(line);
      findings.push({
        rule: "description-injection",
        severity: "error",
        path: "SKILL.md",
        ...(line === undefined ? {} : { line }),
        message: `'${key}' ${what}: ${printable(JSON.stringify(excerpt(hit.text, 60)))}`,
      });
    }
    // Hidden characters written as YAML escapes ("\u200b") are not in the raw text.
    const hidden = [...value].filter((c) =>
      /[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\u{e0000}-\u{e007f}]/u.test(c),
    );
    const rawHasThem =
      lines !== undefined &&
      /[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\u{e0000}-\u{e007f}]/u.test(raw);
    if (hidden.length > 0 && !rawHasThem && /\\[uUx]|\\[NLP_]/.test(raw)) {
      findings.push({
        rule: "hidden-unicode",
        severity: "error",
        path: "SKILL.md",
        ...(lines === undefined ? {} : { line: lines.from }),
        message: `'${key}' holds invisible characters written as YAML escapes (${hidden.length})`,
      });
    }
  }
  return findings;
}
