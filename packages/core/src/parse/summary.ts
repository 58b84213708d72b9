/** Longest {@link bodySummary}, in characters. */
export const MAX_SUMMARY_LENGTH = 500;

const HEADING = /^ {0,3}(#{1,6})[ \t]+(.*?)[ \t#]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
/** Lines that end a paragraph without being prose: lists, quotes, tables, rules, HTML. */
const NOT_PROSE = /^ {0,3}([-*+] |\d+[.)] |>|\||<|-{3,}\s*$|\*{3,}\s*$|_{3,}\s*$)/;

/**
 * What a skill's body says it is for, in a line or two: its first heading and its first
 * paragraph of prose (code, lists, quotes, tables and HTML skipped), whitespace collapsed,
 * `Heading: paragraph`, at most {@link MAX_SUMMARY_LENGTH} characters (cut at a word, `…`).
 * `undefined` for a body with neither. Search indexes it beside the description.
 *
 * @example
 * bodySummary("# PDF tools\n\nFill forms, merge files and pull tables out of PDFs.\n");
 * // "PDF tools: Fill forms, merge files and pull tables out of PDFs."
 */
export function bodySummary(body: string): string | undefined {
  const { heading, paragraph } = scan(body);
  const text = clean(paragraph.join(" "));
  const joined = heading && text ? `${heading}: ${text}` : (heading ?? text);
  if (!joined) return undefined;
  // A string of its own: a slice of the file's text would keep the whole text alive as long
  // as the registry keeps the skill.
  return ` ${cut(joined)}`.slice(1);
}

/**
 * Whether the start of a body decides its summary: its first paragraph of prose ends before
 * the text does, or is already longer than a summary. A load that read a prefix of SKILL.md
 * reads the rest only when it does not.
 */
export function summaryDecided(bodyStart: string): boolean {
  return summaryEnd(bodyStart) !== -1;
}

/**
 * Where in `bodyStart` its summary is decided: the offset after which no text changes it (the
 * start of the line that ended the first paragraph, or where the paragraph outgrew a summary);
 * -1 when the text ends before that (see {@link summaryDecided}).
 */
export function summaryEnd(bodyStart: string): number {
  const { heading, paragraph, closed, end } = scan(bodyStart);
  if (closed) return end;
  // A paragraph already longer than a summary holds is decided too: the rest is cut anyway.
  const raw = (heading ?? "").length + paragraph.reduce((n, line) => n + line.length + 1, 0);
  // Cleaning only shortens: a paragraph whose raw text fits is no longer than a summary.
  if (raw <= MAX_SUMMARY_LENGTH) return -1;
  return (heading ?? "").length + clean(paragraph.join(" ")).length > MAX_SUMMARY_LENGTH
    ? bodyStart.length
    : -1;
}

/** The first heading and the lines of the first paragraph; `closed` when something ended it. */
function scan(body: string): {
  heading: string | undefined;
  paragraph: string[];
  closed: boolean;
  end: number;
} {
  let heading: string | undefined;
  const paragraph: string[] = [];
  let fence: string | undefined;
  // Line by line, stopping at the paragraph's end: a long body is never split whole.
  for (let start = 0; start < body.length; ) {
    const lf = body.indexOf("\n", start);
    const end = lf === -1 ? body.length : lf;
    const line = body.charCodeAt(end - 1) === 13 ? body.slice(start, end - 1) : body.slice(start, end);
    const lineStart = start;
    start = end + 1;
    const open = FENCE.exec(line)?.[1];
    if (fence !== undefined) {
      if (open !== undefined && open[0] === fence[0] && open.length >= fence.length) fence = undefined;
      continue;
    }
    const title = open === undefined ? HEADING.exec(line) : null;
    const prose = open === undefined && !title && line.trim() !== "" && !NOT_PROSE.test(line);
    if (!prose && paragraph.length > 0) return { heading, paragraph, closed: true, end: lineStart };
    if (open !== undefined) fence = open;
    else if (title) heading ??= clean(title[2] ?? "") || undefined;
    else if (prose) paragraph.push(line.trim());
  }
  return { heading, paragraph, closed: false, end: body.length };
}

/** Whitespace collapsed, markdown emphasis and link targets dropped (each pass only when needed). */
function clean(text: string): string {
  let out = text;
  if (out.includes("](")) out = out.replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1");
  if (/[*_`]/.test(out)) out = out.replace(/[*_`]+/g, "");
  if (/\s\s|[^\S ]/.test(out)) out = out.replace(/\s+/g, " ");
  return out.trim();
}

function cut(text: string): string {
  if (text.length <= MAX_SUMMARY_LENGTH) return text;
  const head = text.slice(0, MAX_SUMMARY_LENGTH - 1);
  const space = head.lastIndexOf(" ");
  return `${space > MAX_SUMMARY_LENGTH / 2 ? head.slice(0, space) : head}…`;
}
