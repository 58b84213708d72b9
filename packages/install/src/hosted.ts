import { printable, SkillError } from "@skill/core";
import { checkGitArgument } from "./git.js";

/**
 * A repository on GitHub or GitLab as Vercel's `skills` names one. GitHub: `owner/repo`,
 * `owner/repo/sub/path`, `owner/repo@skill`, `github:owner/repo`, or a `https://github.com/…`
 * URL (with `/tree/<ref>/<path>`, or `/blob/<ref>/<path>/SKILL.md`: that skill's folder).
 * GitLab: `gitlab:group/repo`, a `https://gitlab.com/group/…/repo` URL, or any host's
 * `…/-/tree/<ref>/<path>`. Each may end in `#ref` or `#ref@skill`.
 */
export interface HostedSpec {
  /** The lock's `sourceType`. */
  readonly host: "github" | "gitlab";
  /** The lock's `source`: `owner/repo` on GitHub, the clone URL on GitLab (as `skills` writes them). */
  readonly source: string;
  /** What is cloned: `https://github.com/owner/repo.git`, `https://gitlab.com/group/repo.git`. */
  readonly url: string;
  readonly ref?: string;
  /** The folder of the repository its skills are taken from, `/`-separated. */
  readonly subpath?: string;
  /** `owner/repo@skill`, `#ref@skill`: that skill alone. */
  readonly skill?: string;
}

/** An owner or repository name as GitHub allows it (never `.`, `..` or an option). */
const NAME = /^(?!\.{1,2}$)(?!-)[A-Za-z0-9_.-]+$/;
const GITHUB_URL =
  /^https?:\/\/(?:www\.)?github\.com\/([^/]+)\/([^/]+?)(?:\.git)?(?:\/(?:tree|blob)\/([^/]+)(?:\/(.+?))?)?\/?$/i;
/** Any host's GitLab tree (`https://host/group/…/repo/-/tree/<ref>[/<path>]`). */
const GITLAB_TREE = /^(https?:\/\/[^/]+)\/(.+?)\/-\/(?:tree|blob)\/([^/]+)(?:\/(.+?))?\/?$/i;
const GITLAB_URL = /^(https?:\/\/gitlab\.com)\/(.+?)\/?$/i;
const SKILL_FORM = /^([^/]+)\/([^/@]+)@([^/@]+)$/;
const PATH_FORM = /^([^/]+)\/([^/]+)(?:\/(.+?))?\/?$/;

/** A ref, a folder and a skill, each only when given. */
function rest(ref: string | undefined, subpath: string | undefined, skill: string | undefined) {
  if (ref !== undefined) checkGitArgument(ref, "ref");
  return {
    ...(ref === undefined ? {} : { ref }),
    ...(subpath === undefined ? {} : { subpath }),
    ...(skill === undefined ? {} : { skill }),
  };
}

function github(
  owner: string,
  name: string,
  ref: string | undefined,
  subpath: string | undefined,
  skill?: string,
): HostedSpec | undefined {
  if (!NAME.test(owner) || !NAME.test(name)) return undefined;
  const repo = `${owner}/${name}`;
  return {
    host: "github",
    source: repo,
    url: `https://github.com/${repo}.git`,
    ...rest(ref, subpath, skill),
  };
}

/** GitLab's `group/…/repo` on `origin`, cloned and locked by its `.git` URL. */
function gitlab(
  origin: string,
  path: string,
  ref: string | undefined,
  subpath: string | undefined,
  skill: string | undefined,
): HostedSpec | undefined {
  const segments = path.replace(/\.git$/, "").split("/");
  if (segments.length < 2 || !segments.every((s) => NAME.test(s))) return undefined;
  const url = `${origin}/${segments.join("/")}.git`;
  return { host: "gitlab", source: url, url, ...rest(ref, subpath, skill) };
}

/** `spec#ref` or `spec#ref@skill` split, as `skills` splits them; an empty part is none. */
function fragment(text: string): { body: string; ref?: string; skill?: string } {
  const at = text.indexOf("#");
  if (at < 0) return { body: text };
  const tail = text.slice(at + 1);
  const split = tail.indexOf("@");
  const ref = split < 0 ? tail : tail.slice(0, split);
  const skill = split < 0 ? "" : tail.slice(split + 1);
  return { body: text.slice(0, at), ...(ref ? { ref } : {}), ...(skill ? { skill } : {}) };
}

/** `owner/repo`, `owner/repo/sub/path` or `owner/repo@skill` (no scheme, no leading `.` or `/`). */
function shorthand(body: string, ref: string | undefined, skill: string | undefined): HostedSpec | undefined {
  if (body.includes(":") || body.includes("\\") || body.startsWith(".") || body.startsWith("/"))
    return undefined;
  const at = SKILL_FORM.exec(body);
  if (at) return github(at[1] as string, at[2] as string, ref, undefined, skill ?? at[3]);
  const path = PATH_FORM.exec(body);
  return path ? github(path[1] as string, path[2] as string, ref, path[3], skill) : undefined;
}

/** A path below a repository, `/`-separated; a SKILL.md's page names the skill's folder. */
function folderOf(path: string | undefined): string | undefined {
  return path?.replace(/(?:^|\/)SKILL\.md$/i, "") || undefined;
}

/**
 * The GitHub or GitLab repository `text` names explicitly: `github:…`, `gitlab:…`, a github.com
 * or gitlab.com URL, or any host's GitLab `…/-/tree/<ref>/<path>`; `undefined` for anything else.
 *
 * @throws SkillError `INVALID_URL` for a ref that could be read as an option
 */
export function hostedSource(text: string): HostedSpec | undefined {
  const { body, ref, skill } = fragment(text);
  if (body.startsWith("github:")) return shorthand(body.slice("github:".length), ref, skill);
  if (body.startsWith("gitlab:"))
    return gitlab("https://gitlab.com", body.slice("gitlab:".length), ref, undefined, skill);
  const hub = GITHUB_URL.exec(body);
  if (hub) {
    const [, owner, name, treeRef, path] = hub as unknown as [string, string, string, string?, string?];
    return github(owner, name, treeRef ?? ref, folderOf(path), skill);
  }
  const tree = GITLAB_TREE.exec(body);
  if (tree && !/\/\/(?:www\.)?github\.com$/i.test(tree[1] as string)) {
    const [, origin, path, treeRef, sub] = tree as unknown as [string, string, string, string, string?];
    return gitlab(origin, path, treeRef, folderOf(sub), skill);
  }
  const lab = GITLAB_URL.exec(body);
  return lab ? gitlab(lab[1] as string, lab[2] as string, ref, undefined, skill) : undefined;
}

/**
 * The GitHub repository `text` names as `owner/repo[/path|@skill][#ref]`, Vercel's shorthand;
 * `undefined` when it is not of that form. Read only when no local folder has that name.
 *
 * @throws SkillError `INVALID_URL` for a ref that could be read as an option
 */
export function githubShorthand(text: string): HostedSpec | undefined {
  const { body, ref, skill } = fragment(text);
  return shorthand(body, ref, skill);
}

/**
 * The URL a lock entry of a hosted repository (`sourceType` `github` or `gitlab`, as Vercel's
 * `skills` writes them) is cloned from when its source is not a URL already: its `sourceUrl`,
 * else `owner/repo` (GitLab: `group/…/repo`) on the host.
 *
 * @throws SkillError `INVALID_URL` when `source` is not of that form
 */
export function hostedRepoUrl(entry: {
  readonly name: string;
  readonly source: string;
  readonly sourceType: string;
  readonly sourceUrl?: string;
}): string {
  if (entry.sourceUrl !== undefined) return entry.sourceUrl;
  const [owner = "", name = "", ...more] = entry.source.split("/");
  const hosted =
    entry.sourceType === "gitlab"
      ? gitlab("https://gitlab.com", entry.source, undefined, undefined, undefined)
      : more.length === 0
        ? github(owner, name.replace(/\.git$/, ""), undefined, undefined)
        : undefined;
  if (hosted) return hosted.url;
  throw new SkillError(
    "INVALID_URL",
    `Cannot fetch ${JSON.stringify(printable(entry.name))}: its ${entry.sourceType} source ${JSON.stringify(printable(entry.source))} is not owner/repo or a URL`,
    { url: entry.source },
  );
}
