import { escapeXml, toOneLine } from "./escape.js";

/**
 * One `<skill>` element, its children indented two spaces deeper than `indent`. A missing
 * description leaves out the `<description>` element, a missing location the `<location>`.
 */
export function skillElement(
  indent: string,
  name: string,
  description: string | undefined,
  location: string | undefined,
): string {
  const lines = [`${indent}<skill>`, `${indent}  <name>${escapeXml(name)}</name>`];
  if (description !== undefined)
    lines.push(`${indent}  <description>${escapeXml(description)}</description>`);
  if (location !== undefined) lines.push(`${indent}  <location>${escapeXml(location)}</location>`);
  lines.push(`${indent}</skill>`);
  return lines.join("\n");
}

/** One markdown bullet, `- **name**: description`, or `- **name**` without a description. */
export function skillBullet(name: string, description: string | undefined): string {
  const head = `- **${toOneLine(name)}**`;
  return description === undefined ? head : `${head}: ${toOneLine(description)}`;
}
