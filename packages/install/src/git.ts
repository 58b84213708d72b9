import { execFile } from "node:child_process";
import { abortError, printable, quote, redactText, SkillError } from "@skill/core";
import type { GitPort } from "./types.js";

type Env = Readonly<Record<string, string | undefined>>;

/** Transports git may use: never `ext::` (which runs a command) or another helper. */
const ALLOWED_PROTOCOLS = "file:git:http:https:ssh";

/**
 * Refuses a URL, path or ref git could read as an option (`-u…`, `--upload-pack=…`), or an
 * empty one, from the command line and from a lock alike.
 *
 * @throws SkillError `INVALID_URL`
 */
export function checkGitArgument(value: string, what: "repository" | "ref"): void {
  if (typeof value !== "string" || value === "" || value.startsWith("-") || value.includes("\0")) {
    throw new SkillError(
      "INVALID_URL",
      `Invalid URL: expected a git ${what === "ref" ? "branch, tag or commit" : "repository"} that does not start with "-", found ${quote(value)}`,
      what === "repository" ? { url: String(value) } : { field: "ref" },
    );
  }
}

function run(
  args: readonly string[],
  env: Env,
  signal: AbortSignal | undefined,
  cwd?: string,
): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      "git",
      args as string[],
      {
        ...(cwd === undefined ? {} : { cwd }),
        // Only what git needs: none of the caller's git configuration or credential prompts.
        env: {
          PATH: env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
          HOME: env.HOME ?? "/nonexistent",
          GIT_TERMINAL_PROMPT: "0",
          GIT_CONFIG_NOSYSTEM: "1",
          GIT_ALLOW_PROTOCOL: ALLOWED_PROTOCOLS,
          LC_ALL: "C",
        },
        maxBuffer: 16 * 1024 * 1024,
        timeout: 300_000,
        ...(signal === undefined ? {} : { signal }),
      },
      (error, stdout, stderr) => {
        if (!error) return resolve(stdout);
        if (signal?.aborted) {
          return reject(abortError(signal, `git ${args[0]} was aborted`));
        }
        const said = String(stderr || error.message)
          .trim()
          .split("\n")
          .slice(-3)
          .join(" ");
        reject(
          // A credential in the URL (`https://token@host/…`) stays out of the message.
          new SkillError(
            "REMOTE_ERROR",
            redactText(`Remote fetch failed: git ${args.join(" ")}: ${printable(said)}`),
          ),
        );
      },
    );
  });
}

/**
 * The default {@link GitPort}: the `git` binary on `env.PATH`, with a clean environment (no
 * system configuration, no prompts, no `ext::` transport), arguments that cannot be read as
 * options, and a detached checkout of `ref` (the default branch without one).
 */
export function gitBinary(env: Env = {}): GitPort {
  return {
    async clone(url, ref, into, signal) {
      checkGitArgument(url, "repository");
      if (ref !== undefined) checkGitArgument(ref, "ref");
      await run(["clone", "--quiet", "--no-checkout", "--", url, into], env, signal);
      await run(["checkout", "--quiet", "--detach", ref ?? "HEAD", "--"], env, signal, into);
      const commit = (await run(["rev-parse", "HEAD"], env, signal, into)).trim();
      return { commit };
    },
  };
}
