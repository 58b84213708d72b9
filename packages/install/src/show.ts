import { relative, sep } from "node:path";
import { isInside } from "@skill/core";
import type { ScopeLayout } from "./scope.js";

/**
 * A path as messages show it: relative to the project (`.agents/skills/pdf`), under the home
 * as `~/…`, else absolute.
 */
export function shower(layout: ScopeLayout): (path: string) => string {
  return (path) => {
    if (!layout.global && isInside(layout.root, path) && path !== layout.root) {
      return relative(layout.root, path).split(sep).join("/");
    }
    if (isInside(layout.home, path) && path !== layout.home)
      return `~/${relative(layout.home, path).split(sep).join("/")}`;
    return path;
  };
}
