import { quote } from "../spec/errors.js";
import { similarNames } from "./similar.js";

/**
 * ` Did you mean "pdf"?` when some of `names` look like `name` (at most three, by
 * {@link similarNames}), else `""`: the end of a sentence that says `name` was not found. Pass
 * only names the reader may see (an agent's skills, a lock's entries).
 *
 * @example
 * throw new SkillError("NOT_FOUND", `No skill ${quote(name)}.${didYouMean(name, names)}`);
 */
export function didYouMean(name: string, names: readonly string[]): string {
  const similar = similarNames(name, names).slice(0, 3);
  return similar.length > 0 ? ` Did you mean ${similar.map((n) => quote(n)).join(", ")}?` : "";
}
