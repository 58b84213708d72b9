import type { TextFile } from "./text.js";

/**
 * `allowed-tools` as a list of tools. A string is split on whitespace and commas outside
 * parentheses (`Bash(git status:*) Read` is two tools); list items are split the same way.
 */
export function normalizeTools(value: unknown): string[] {
  const items = typeof value === "string" ? [value] : Array.isArray(value) ? value : [];
  const tools: string[] = [];
  for (const item of items) {
    if (typeof item !== "string") continue;
    let depth = 0;
    let current = "";
    const flush = () => {
      const tool = current.trim().replace(/\s+/g, " ");
      if (tool !== "") tools.push(tool);
      current = "";
    };
    for (const c of item) {
      if (c === "(") depth++;
      else if (c === ")") depth = Math.max(0, depth - 1);
      if (depth === 0 && (c === "," || /\s/.test(c))) flush();
      else current += c;
    }
    flush();
  }
  return tools;
}

const SCRIPT_EXTENSIONS = new Set([
  "sh",
  "bash",
  "zsh",
  "ksh",
  "fish",
  "csh",
  "py",
  "pyw",
  "rb",
  "pl",
  "pm",
  "php",
  "js",
  "mjs",
  "cjs",
  "ts",
  "mts",
  "cts",
  "ps1",
  "psm1",
  "bat",
  "cmd",
  "vbs",
  "lua",
  "applescript",
  "scpt",
  "exe",
  "com",
  "msi",
  "dll",
  "so",
  "dylib",
  "jar",
]);

export function extensionOf(path: string): string {
  const name = path.slice(path.lastIndexOf("/") + 1);
  const dot = name.lastIndexOf(".");
  return dot <= 0 ? "" : name.slice(dot + 1).toLowerCase();
}

function nativeBinary(b: Uint8Array): boolean {
  if (b[0] === 0x7f && b[1] === 0x45 && b[2] === 0x4c && b[3] === 0x46) return true; // ELF
  if (b[0] === 0x4d && b[1] === 0x5a) return true; // MZ (Windows PE)
  const magic = ((b[0] ?? 0) << 24) | ((b[1] ?? 0) << 16) | ((b[2] ?? 0) << 8) | (b[3] ?? 0);
  return [0xcffaedfe, 0xcefaedfe, 0xfeedfacf, 0xfeedface].includes(magic >>> 0); // Mach-O
}

/** A file that can run: shebang, exec bit, native binary, or a script extension. */
export function isExecutable(path: string, bytes: Uint8Array, execBit: boolean): boolean {
  if (bytes[0] === 0x23 && bytes[1] === 0x21) return true; // #!
  if (execBit && process.platform !== "win32") return true;
  return nativeBinary(bytes) || SCRIPT_EXTENSIONS.has(extensionOf(path));
}

/** The interpreter a shebang names (`bash`, `python3`, `node`), or "". */
export function shebangInterpreter(text: string): string {
  const match = /^#!\s*(\S+)(?:\s+(?:-\S+\s+)*(\S+))?/.exec(text);
  if (!match) return "";
  const program = (match[1] ?? "").split("/").pop() ?? "";
  return program === "env" ? (match[2] ?? "") : program;
}

const URL_AUTHORITY = /\b(?:https?|wss?|s?ftp|git\+https?|git\+ssh|ssh):\/\/([^\s/?#"'`<>()[\]{}|\\,;*^]+)/gi;
const HOSTNAME = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/;
const IPV4 = /^(?:\d{1,3}\.){3}\d{1,3}$/;

/** `text` without the characters of `chars` at its end (a loop: `/[.:]+$/` retries from every dot). */
function trimEnd(text: string, chars: string): string {
  let end = text.length;
  while (end > 0 && chars.includes(text.charAt(end - 1))) end--;
  return text.slice(0, end);
}

/** Host names in URLs of `text`: lower case, IDN as punycode, no user or port. */
export function hostsIn(text: string, into: Set<string>): void {
  URL_AUTHORITY.lastIndex = 0;
  for (let m = URL_AUTHORITY.exec(text); m !== null; m = URL_AUTHORITY.exec(text)) {
    const authority = trimEnd(m[1] ?? "", ".:");
    let host: string;
    try {
      host = new URL(`http://${authority}/`).hostname;
    } catch {
      continue;
    }
    host = host.replace(/\.$/, "");
    if (HOSTNAME.test(host) || IPV4.test(host) || host === "localhost" || /^\[[0-9a-f:.]+\]$/.test(host)) {
      into.add(host);
    }
  }
}

/** Reads that name their variable: the same in any file. */
const ENV_CALLS: readonly RegExp[] = [
  /\bprocess\.env\.([A-Za-z_]\w*)/g,
  /\bprocess\.env\[\s*["'`]([A-Za-z_]\w*)["'`]\s*\]/g,
  /\bimport\.meta\.env\.([A-Za-z_]\w*)/g,
  /\b(?:Deno\.env\.get|Bun\.env\.get)\(\s*["'`]([A-Za-z_]\w*)["'`]/g,
  /\bBun\.env\.([A-Za-z_]\w*)/g,
  /\b(?:os\.)?environ\s*\[\s*["']([A-Za-z_]\w*)["']\s*\]/g,
  /\b(?:os\.)?environ\.get\(\s*["']([A-Za-z_]\w*)["']/g,
  /\bos\.getenv\(\s*["']([A-Za-z_]\w*)["']/g,
  /\bgetenv\(\s*["']([A-Za-z_]\w*)["']/g,
  /\bENV(?:\.fetch\(\s*|\[\s*)["']([A-Za-z_]\w*)["']/g,
  /\$env:([A-Za-z_]\w*)/gi,
  /\bprintenv\s+([A-Za-z_]\w*)/g,
  /\[(?:System\.)?Environment\]::GetEnvironmentVariable\(\s*["']([A-Za-z_]\w*)["']/gi,
];

/**
 * `$NAME` and `${NAME}` in shell code and markdown; upper case only (locals are lower case by
 * habit), two characters at least (`$X` is a placeholder or maths far more often than a
 * variable), and not starting with `_` (PHP's `$_GET`, bash's `$_`). `${NAME` counts only as
 * a parameter expansion (`}`, `:-`, `#`, `%`, `/`…), not a JavaScript template's
 * `${JSON.stringify(x)}`; `$NAME$` is LaTeX maths, `$$NAME` a process id and a word, `\$NAME`
 * no expansion at all.
 */
const SHELL_VAR = /(?<![$\\])\$(?:\{([A-Z][A-Z0-9_]+)(?=[}:#%/^,@?=+-])|([A-Z][A-Z0-9_]+)(?![A-Za-z0-9_$]))/g;
/**
 * Names a shell file sets itself: `NAME=`, `export NAME=`, `for NAME in`, `read NAME`. Not
 * `-read`: an option is no command, and a start inside options rescans all that follow it.
 */
const SHELL_ASSIGN =
  /(?:^|[\s;&|(])(?:export\s+|local\s+|readonly\s+|declare\s+(?:-\w+\s+)*)?([A-Za-z_]\w*)=|\bfor\s+([A-Za-z_]\w*)\s+in\b|(?<![\w-])read\s+(?:-\w+\s+)*([A-Za-z_]\w*)/gm;
/** Claude Code substitutions in SKILL.md, not environment reads. */
const SUBSTITUTIONS = new Set(["ARGUMENTS", "CLAUDE_SKILL_DIR", "CLAUDE_SESSION_ID"]);

export type TextKind = "markdown" | "shell" | "other";

/** What one skill's files say about environment variables, gathered before deciding. */
export interface EnvEvidence {
  /** Named reads: `process.env.X`, `os.getenv("X")`, `printenv X`… always reads. */
  readonly reads: Set<string>;
  /** `$X` and `${X}` in shell code and markdown. */
  readonly dollars: Set<string>;
  /** Names the skill's own shell code or markdown sets (`X=…`, `export X=…`, `for X in`, `read X`). */
  readonly assigned: Set<string>;
}

export function envEvidence(): EnvEvidence {
  return { reads: new Set(), dollars: new Set(), assigned: new Set() };
}

/** Adds what `file` says about environment variables to `into`. */
export function envIn(file: TextFile, kind: TextKind, into: EnvEvidence): void {
  const text = file.text;
  for (const pattern of ENV_CALLS) {
    pattern.lastIndex = 0;
    for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) if (m[1]) into.reads.add(m[1]);
  }
  if (kind === "other") return;
  SHELL_ASSIGN.lastIndex = 0;
  for (let m = SHELL_ASSIGN.exec(text); m !== null; m = SHELL_ASSIGN.exec(text)) {
    const name = m[1] ?? m[2] ?? m[3];
    if (name) into.assigned.add(name);
  }
  SHELL_VAR.lastIndex = 0;
  for (let m = SHELL_VAR.exec(text); m !== null; m = SHELL_VAR.exec(text)) {
    const name = m[1] ?? m[2] ?? "";
    if ((kind === "markdown" && SUBSTITUTIONS.has(name)) || name === "ARGUMENTS") continue;
    into.dollars.add(name);
  }
}

/**
 * The variables a skill reads from its environment: every named read, and every `$X` the
 * skill does not set itself (a variable one snippet sets and the next uses is the skill's own).
 */
export function envRead(evidence: EnvEvidence): string[] {
  const names = new Set(evidence.reads);
  for (const name of evidence.dollars) if (!evidence.assigned.has(name)) names.add(name);
  return [...names];
}

const INLINE_COMMAND = /(?<![\w`])!`([^`\n]+)`/g;
const MAX_COMMAND = 500;

/** Commands Claude Code runs before the model sees SKILL.md: `` !`cmd` `` and ```` ```! ```` blocks. */
export function commandsIn(
  file: TextFile,
  blocks: readonly { open: number; close: number; info: string }[],
  into: Set<string>,
  firstLine: number,
): void {
  const cap = (s: string) => (s.length > MAX_COMMAND ? `${s.slice(0, MAX_COMMAND - 1)}…` : s);
  INLINE_COMMAND.lastIndex = file.lineStart(firstLine);
  for (let m = INLINE_COMMAND.exec(file.text); m !== null; m = INLINE_COMMAND.exec(file.text)) {
    const command = (m[1] ?? "").trim();
    if (command !== "") into.add(cap(command));
  }
  for (const block of blocks) {
    if (!block.info.startsWith("!")) continue;
    const lines: string[] = [];
    const last =
      block.close > block.open && /^ {0,3}(`{3,}|~{3,})\s*$/.test(file.line(block.close))
        ? block.close - 1
        : block.close;
    for (let n = block.open + 1; n <= last; n++) lines.push(file.line(n));
    const command = lines.join("\n").trim();
    if (command !== "") into.add(cap(command));
  }
}
