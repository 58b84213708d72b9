/** One entry of a skill's `allowed-tools`: a tool name, and the pattern in `Tool(pattern)` if any. */
export interface ToolRule {
  readonly tool: string;
  readonly pattern?: string;
}

/** What a skill's `allowed-tools` says, and anything about it worth a warning. */
export interface AllowedTools {
  readonly rules: readonly ToolRule[];
  readonly warnings: readonly string[];
}

/** Splits `text` on commas and on whitespace outside parentheses (`Bash(git diff:*) Read, Glob`). */
function tokens(text: string): { list: string[]; unbalanced: boolean } {
  const list: string[] = [];
  let depth = 0;
  let token = "";
  for (const char of text) {
    if (char === "(") depth++;
    else if (char === ")") depth = Math.max(0, depth - 1);
    if (depth === 0 && (char === "," || /\s/.test(char))) {
      if (token !== "") list.push(token);
      token = "";
    } else token += char;
  }
  if (token !== "") list.push(token);
  return { list, unbalanced: depth !== 0 };
}

function ruleOf(token: string): ToolRule {
  const call = /^([^()]+)\((.*)\)$/s.exec(token);
  return call ? { tool: call[1] as string, pattern: (call[2] as string).trim() } : { tool: token };
}

/**
 * Reads a skill's `allowed-tools` field: a string split on commas and on whitespace outside
 * parentheses (the specification writes spaces; most skills write `Read, Glob, Grep`), or a
 * YAML list of strings (accepted, with a warning). `undefined` when the field is absent.
 */
export function parseAllowedTools(value: unknown): AllowedTools | undefined {
  if (value === undefined || value === null) return undefined;
  const warnings: string[] = [];
  let texts: string[];
  if (typeof value === "string") texts = [value];
  else if (Array.isArray(value) && value.every((v) => typeof v === "string")) {
    texts = value as string[];
    warnings.push("allowed-tools is a YAML list; the specification writes one string (`Read Grep`)");
  } else {
    return {
      rules: [],
      warnings: [`allowed-tools must be a string, found ${Array.isArray(value) ? "a list" : typeof value}`],
    };
  }
  const rules: ToolRule[] = [];
  for (const text of texts) {
    const { list, unbalanced } = tokens(text);
    if (unbalanced) warnings.push(`allowed-tools has an unclosed parenthesis: ${JSON.stringify(text)}`);
    rules.push(...list.map(ruleOf));
  }
  return { rules, warnings };
}

/**
 * Whether `rule` allows the tool `name` with `input`: the names are equal (exact case), and a
 * pattern, when the input has a string `command`, matches it as Claude Code does (`git diff:*`:
 * the command starts with `git diff`; `npx *eas-cli@*`: `*` is any text; otherwise the whole
 * command). Other patterns (`Read(./src/**)`, `WebFetch(domain:…)`) match the name only.
 */
export function ruleMatches(rule: ToolRule, name: string, input: unknown): boolean {
  if (rule.tool !== name) return false;
  if (rule.pattern === undefined || rule.pattern === "" || rule.pattern === "*") return true;
  const command = (input as { command?: unknown } | null | undefined)?.command;
  if (typeof command !== "string") return true;
  const trimmed = command.trim();
  if (rule.pattern.endsWith(":*")) {
    return trimmed.startsWith(rule.pattern.slice(0, -2));
  }
  if (rule.pattern.includes("*")) return commandGlob(rule.pattern).test(trimmed);
  return trimmed === rule.pattern;
}

/**
 * A pattern with `*` as Claude Code reads it: `*` is any text, and a final ` *` also matches
 * the command alone (`expo *`: `expo` and `expo start`, never `expose`).
 */
function commandGlob(pattern: string): RegExp {
  const spaced = pattern.endsWith(" *");
  const body = spaced ? pattern.slice(0, -2) : pattern;
  const source = body
    .split("*")
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
    .join(".*");
  return new RegExp(`^${source}${spaced ? "(?: .*)?" : ""}$`, "s");
}

/** How a rule reads in a sentence: `Bash(git diff:*)`. */
export function ruleText(rule: ToolRule): string {
  return rule.pattern === undefined ? rule.tool : `${rule.tool}(${rule.pattern})`;
}

/** A decision of {@link SkillTools.policy}, with the sentence that explains it. */
export interface ToolDecision {
  readonly decision: "allow" | "ask" | "deny";
  readonly reason: string;
}

/**
 * The decision for the tool `name` (in the skills' spelling) with `input`, given the loaded
 * skills that declare `allowed-tools` (`declared`: skill name → its rules) and the mode.
 */
export function decideTool(
  mode: "ignore" | "pre-approve" | "restrict",
  declared: ReadonlyMap<string, readonly ToolRule[]>,
  name: string,
  input: unknown,
): ToolDecision {
  if (mode === "ignore")
    return { decision: "ask", reason: "allowed-tools is ignored here: the harness's default" };
  if (declared.size === 0) {
    return { decision: "ask", reason: "no loaded skill declares allowed-tools: the harness's default" };
  }
  for (const [skill, rules] of declared) {
    const rule = rules.find((r) => ruleMatches(r, name, input));
    if (rule)
      return { decision: "allow", reason: `pre-approved by the skill '${skill}' (${ruleText(rule)})` };
  }
  if (mode === "pre-approve") return { decision: "ask", reason: "not pre-approved: the harness's default" };
  const named = [...declared].flatMap(([skill, rules]) =>
    rules.filter((r) => r.tool === name).map((r) => `${ruleText(r)} (${skill})`),
  );
  if (named.length > 0) {
    return {
      decision: "deny",
      reason: `the input does not match what the loaded skills allow: ${named.join(", ")}`,
    };
  }
  const all = [...new Set([...declared.values()].flatMap((rules) => rules.map(ruleText)))];
  return {
    decision: "deny",
    reason: `no loaded skill lists ${name} in allowed-tools (they allow: ${all.join(", ") || "nothing"})`,
  };
}
