import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";

/**
 * The folder every `@skill/*` cache lives under: `$XDG_CACHE_HOME/skill` when that is an
 * absolute path (the XDG rule: a relative one is ignored), else `~/.cache/skill`, home from
 * `env.HOME`, else the operating system's. Remote packs keep `remote/` below it; the CLI's
 * head caches keep `heads/`.
 */
export function skillCacheHome(env: Readonly<Record<string, string | undefined>>): string {
  const xdg = env.XDG_CACHE_HOME;
  if (xdg && isAbsolute(xdg)) return join(xdg, "skill");
  return join(env.HOME || homedir(), ".cache", "skill");
}
