import { printable, SkillError } from "@skill/core";
import { checkGitArgument } from "./git.js";

/**
 * A GitHub repository as Vercel's `skills` names one: `owner/repo`, `owner/repo/sub/path`,
 * `owner/repo@skill`, `github:owner/repo`, or a `https://github.com/owner/repo` URL (with
 * `/tree/<ref>/<path>`, or `/blob/<ref>/<path>/SKILL.md`: that skill's folder); each may end
 * in `#ref`.
 */
export interface GithubSpec {
  /** `owner/repo`, as a lock records it (`sourceType: "github"`). */
  readonly repo: string;
  /** What is cloned: `https://github.com/owner/repo.git`. */
  readonly url: string;
  readonly ref?: string;
  /** The folder of the repository its skills are taken from, `/`-separated. */
  readonly subpath?: string;
  /** `owner/repo@skill`: that skill alone. */
  readonly skill?: string;
}

/** An owner or repository name as GitHub allows it (never `.`, `..` or an option). */
const NAME = /^(?!\.{1,2}$)(?!-)[A-Za-z0-9_.-]+$/;
const URL_FORM =
  /^https?:\/\/(?:www\.)?github\.com\/([^/]+)\/([^/]+?)(?:\.git)?(?:\/(?:tree|blob)\/([^/]+)(?:\/(.+?))?)?\/?$/i;
const SKILL_FORM = /^([^/]+)\/([^/@]+)@([^/@]+)$/;
const PATH_FORM = /^([^/]+)\/([^/]+)(?:\/(.+?))?\/?$/;

function spec(
  owner: string,
  name: string,
  ref: string | undefined,
  subpath: string | undefined,
  skill?: string,
): GithubSpec | undefined {
  if (!NAME.test(owner) || !NAME.test(name)) return undefined;
  if (ref !== undefined) checkGitArgument(ref, "ref");
  const repo = `${owner}/${name}`;
  return {
    repo,
    url: `https://github.com/${repo}.git`,
    ...(ref === undefined ? {} : { ref }),
    ...(subpath === undefined ? {} : { subpath }),
    ...(skill === undefined ? {} : { skill }),
  };
}

/** `spec#ref` split; an empty ref is none. */
function withoutRef(text: string): { rest: string; ref?: string } {
  const at = text.lastIndexOf("#");
  if (at < 0 || at === text.length - 1) return { rest: at < 0 ? text : text.slice(0, at) };
  return { rest: text.slice(0, at), ref: text.slice(at + 1) };
}

/** `owner/repo`, `owner/repo/sub/path` or `owner/repo@skill` (no scheme, no leading `.` or `/`). */
function shorthand(rest: string, ref: string | undefined): GithubSpec | undefined {
  if (rest.includes(":") || rest.includes("\\") || rest.startsWith(".") || rest.startsWith("/"))
    return undefined;
  const at = SKILL_FORM.exec(rest);
  if (at) return spec(at[1] as string, at[2] as string, ref, undefined, at[3]);
  const path = PATH_FORM.exec(rest);
  return path ? spec(path[1] as string, path[2] as string, ref, path[3]) : undefined;
}

/**
 * The GitHub repository `text` names explicitly: `github:…` or a github.com URL; `undefined`
 * for anything else.
 *
 * @throws SkillError `INVALID_URL` for a ref that could be read as an option
 */
export function githubSource(text: string): GithubSpec | undefined {
  const { rest, ref } = withoutRef(text);
  if (rest.startsWith("github:")) return shorthand(rest.slice("github:".length), ref);
  const url = URL_FORM.exec(rest);
  if (!url) return undefined;
  const [, owner, name, treeRef, path] = url as unknown as [string, string, string, string?, string?];
  // A SKILL.md's page (`/blob/<ref>/…/SKILL.md`) names the skill's folder.
  const subpath = path?.replace(/(?:^|\/)SKILL\.md$/i, "") || undefined;
  return spec(owner, name, treeRef ?? ref, subpath);
}

/**
 * The GitHub repository `text` names as `owner/repo[/path|@skill][#ref]`, Vercel's shorthand;
 * `undefined` when it is not of that form. Read only when no local folder has that name.
 *
 * @throws SkillError `INVALID_URL` for a ref that could be read as an option
 */
export function githubShorthand(text: string): GithubSpec | undefined {
  const { rest, ref } = withoutRef(text);
  return shorthand(rest, ref);
}

/**
 * The URL a lock entry of a hosted repository (`sourceType` `github` or `gitlab`, as Vercel's
 * `skills` writes them) is cloned from: its `sourceUrl`, else its `source` when that is a URL,
 * else `owner/repo` (GitLab: `group/…/repo`) on the host.
 *
 * @throws SkillError `INVALID_URL` when `source` is none of those
 */
export function hostedRepoUrl(entry: {
  readonly name: string;
  readonly source: string;
  readonly sourceType: string;
  readonly sourceUrl?: string;
}): string {
  if (entry.sourceUrl !== undefined) return entry.sourceUrl;
  if (/^(?:https?|ssh):\/\/|^git@/i.test(entry.source)) return entry.source;
  const segments = entry.source.replace(/\.git$/, "").split("/");
  const gitlab = entry.sourceType === "gitlab";
  if (segments.length >= 2 && (gitlab || segments.length === 2) && segments.every((s) => NAME.test(s))) {
    return `https://${gitlab ? "gitlab.com" : "github.com"}/${segments.join("/")}.git`;
  }
  throw new SkillError(
    "INVALID_URL",
    `Cannot fetch ${JSON.stringify(printable(entry.name))}: its ${entry.sourceType} source ${JSON.stringify(printable(entry.source))} is not owner/repo or a URL`,
    { url: entry.source },
  );
}
