import { isAbsolute } from "node:path";
import { pathToFileURL } from "node:url";
import { SkillError } from "@skill/core";

/** How a file location is written: the path as given, or a `file://` URL. */
export type LocationStyle = "path" | "file-url";

/**
 * Writes a location in the chosen style. Only absolute paths become `file://` URLs: turning a
 * relative one into a URL would read the working directory, so it is written as given.
 */
export function formatLocation(path: string, style: LocationStyle): string {
  return style === "file-url" && isAbsolute(path) ? pathToFileURL(path).href : path;
}

/** Checks a `locationStyle` option that may come from untyped config. */
export function checkLocationStyle(style: unknown): LocationStyle {
  if (style === "path" || style === "file-url") return style;
  throw new SkillError(
    "INVALID_FIELD",
    `Invalid locationStyle: expected "path" or "file-url", found ${JSON.stringify(style)}`,
    { field: "locationStyle" },
  );
}
