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

const INJECTION: readonly { readonly pattern: RegExp; readonly what: string }[] = [
  {
    what: "tells the model to drop its instructions",
    pattern:
      /\b(?:ignore|disregard|forget|override|bypass)\s+(?:(?:all|any|the|of|your)\s+)*(?:previous|prior|preceding|above|earlier|former|other|existing|system|developer|safety)\s+(?:instructions?|prompts?|rules|directions|directives|guidelines|messages|constraints|policies)\b/i,
  },
  {
    what: "tells the model to drop its instructions",
    pattern:
      /\b(?:ignore|disregard|forget|override|bypass)\s+(?:all|any|your)\s+(?:(?:the|of|your)\s+)*(?:instructions?|prompts?|rules|directions|directives|guidelines|constraints|policies)\b/i,
  },
  { what: "redefines the model", pattern: /\byou\s+are\s+now\b/i },
  {
    what: "asks the model to hide something from the user",
    pattern:
      /\b(?:do\s+not|don't|never)\s+(?:tell|inform|alert|reveal\s+(?:this\s+)?to|mention\s+(?:this\s+)?to)\s+the\s+user\b/i,
  },
  {
    what: "holds chat or prompt markup",
    pattern:
      /<\/?\s*(?:system|important|system[-_]prompt|system[-_]reminder|assistant|developer|instructions?|available_skills|skill_content|skills|tool_call|tool_result|function_calls?|function_results|im_start|im_end|antml:[\w-]+)(?:\s[^>\n]*)?>/i,
  },
  { what: "holds chat or prompt markup", pattern: /<\|[a-z_]{2,30}\|>|\[\/?(?:INST|SYS)\]|<<\/?SYS>>/i },
];

/** Lines (1-based, inclusive) holding the value of top-level `key` in the frontmatter. */
function fieldLines(
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
    for (const { pattern, what } of INJECTION) {
      const inRaw = lines ? pattern.exec(raw) : null;
      const hit = inRaw ?? pattern.exec(value);
      if (!hit) continue;
      const line = inRaw && lines ? file.lineAt(file.lineStart(lines.from) + inRaw.index) : lines?.from;
      if (line !== undefined && seen.has(line)) continue;
      if (line !== undefined) seen.add(line);
      findings.push({
        rule: "description-injection",
        severity: "error",
        path: "SKILL.md",
        ...(line === undefined ? {} : { line }),
        message: `'${key}' ${what}: ${printable(JSON.stringify(excerpt(hit[0], 60)))}`,
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
